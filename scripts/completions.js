// Writes the completion scripts shipped in completions/ from the built program, so they always
// match its commands and options (a test fails when they drift: run `npm run completions`).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

const COMPLETION_FILES = { bash: 'ksctl.bash', zsh: '_ksctl', fish: 'ksctl.fish' };

mkdirSync('completions', { recursive: true });
for (const [shell, file] of Object.entries(COMPLETION_FILES)) {
  const script = execFileSync(process.execPath, ['bin/ksctl.js', 'completion', shell], {
    encoding: 'utf8',
  });
  writeFileSync(`completions/${file}`, script);
}
