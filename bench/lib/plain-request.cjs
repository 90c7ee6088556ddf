// One GET of the markings listing with node:http and nothing else (no ksctl, no undici): the
// floor any network command starts from, beside `node -e 0` (the startup group's "plain GET"
// rows). It reads KSCTL_BASE_URL and KSCTL_TOKEN as ksctl does and prints the listing's
// markings as JSON, as `ksctl markings list -o json` does.
'use strict';
const http = require('node:http');

const url = new URL(`${process.env.KSCTL_BASE_URL}/markings?skip=0&limit=100`);
const request = http.get(
  url,
  {
    headers: {
      accept: 'application/json',
      authorization: `Bearer ${process.env.KSCTL_TOKEN}`,
    },
  },
  (answer) => {
    let text = '';
    answer.setEncoding('utf8');
    answer.on('data', (chunk) => (text += chunk));
    answer.on('end', () => {
      if (answer.statusCode !== 200) {
        process.stderr.write(`HTTP ${answer.statusCode}: ${text.slice(0, 200)}\n`);
        process.exitCode = 1;
        return;
      }
      const body = JSON.parse(text);
      process.stdout.write(`${JSON.stringify(body.Resources)}\n`);
    });
  },
);
request.on('error', (error) => {
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
});
