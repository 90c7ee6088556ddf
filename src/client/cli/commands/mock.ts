/**
 * `ksctl mock`: the commander definitions of serve, tokens, outbox, requests, devices, messages,
 * console, capture, record, faults and reset, one function each; serve runs from
 * mock-serve-actions.ts, capture and record (which reach the service in use) from
 * mock-capture-actions.ts and mock-record-actions.ts, the rest talk to a running mock from
 * mock-admin-actions.ts, each loaded when its command runs.
 */
import { Command, InvalidArgumentError } from 'commander';
import { examples } from '../kit/help.js';
import type { CommandContext } from '../kit/command-context.js';
import { collect } from '../kit/options.js';
import type {
  ConsoleOptions,
  OutboxOptions,
  RequestsOptions,
  TokensOptions,
} from './mock-admin-actions.js';
import type { ServeOptions } from './mock-serve-actions.js';
import type { CaptureOptions } from './mock-capture-actions.js';
import type { RecordOptions } from './mock-record-actions.js';
import type { RecoverOptions } from './mock-state-actions.js';

const serveActions = () => import('./mock-serve-actions.js');
const adminActions = () => import('./mock-admin-actions.js');
const stateActions = () => import('./mock-state-actions.js');
const captureActions = () => import('./mock-capture-actions.js');
const recordActions = () => import('./mock-record-actions.js');

/** A whole number of at least `min` (commander reports the error, exit 2). */
function atLeast(min: number, what: string) {
  return (text: string): number => {
    if (!/^\d{1,9}$/.test(text) || Number(text) < min)
      throw new InvalidArgumentError(`expected ${what} of at least ${min}.`);
    return Number(text);
  };
}

/** `--port`: a TCP port, 0 for any free one (commander reports the error, exit 2). */
function portNumber(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  return Number(text);
}

export function mockCommand(ctx: CommandContext): Command {
  const mock = new Command('mock').description(
    'the embedded mock of the whole service: markings API, enrollment, key server, portal, key naming',
  );
  examples(
    mock,
    'ksctl mock serve --port 8443',
    'eval "$(ksctl mock tokens --user alice)" && ksctl enroll --name laptop',
  );

  mock.addCommand(mockServeCommand(ctx));
  mock.addCommand(mockTokensCommand(ctx));
  mock.addCommand(mockOutboxCommand(ctx));
  mock.addCommand(mockRequestsCommand(ctx));
  mock.addCommand(mockDevicesCommand(ctx));
  mock.addCommand(mockMessagesCommand(ctx));
  mock.addCommand(mockConsoleCommand(ctx));
  mock.addCommand(mockCaptureCommand(ctx));
  mock.addCommand(mockRecordCommand(ctx));
  mock.addCommand(mockCaCommand(ctx));

  const faults = mock.command('faults').description("a running mock's fault rules");
  examples(
    faults,
    'ksctl mock faults set status=503,path=/v2/dev/markings*,times=2',
    'ksctl mock faults clear',
  );
  examples(
    faults.command('list').alias('ls').description('show the fault rules in force'),
    'ksctl mock faults list',
    'ksctl mock faults list -o json',
  ).action(async () => (await adminActions()).faultsList(ctx));
  faults
    .command('set')
    .description('replace the fault rules')
    .argument('<rule...>', 'rules as key=value lists or JSON objects')
    .addHelpText(
      'after',
      `
Rule keys (a request matches when every key given matches):
  method       HTTP method, e.g. GET (any when left out)
  path         an exact path, or a prefix ending in *, e.g. /v2/dev/markings*
  status       answer with this HTTP status
  code         answer as the service does for this code: an enrollment cause (e.g. 41701
               on /v2.3/register/ABcd), or a device error (e.g. 40121 on /v2.4/keys/*),
               with its own status (leave status out), once the device is proved, sealed
               as the real error is; a per-key code (4004, 4202, ...) fails every key or
               ref of the request (README: "Device errors on purpose")
  probability  0 to 1, the share of matching requests it answers (default 1)
  times        how many times it fires before it is spent (default: unlimited)

Examples:
  ksctl mock faults set status=503,path=/v2/dev/markings*,times=2
  ksctl mock faults set '{"code": 41701, "path": "/v2.3/register/ABcd"}'
  ksctl mock faults set code=40121,path=/v2.4/keys/*,times=1 code=4004,path=/v2.4/keys/fetch`,
    )
    .action(async (rules: string[]) => (await adminActions()).faultsSet(ctx, rules));
  examples(
    faults.command('clear').description('remove every fault rule'),
    'ksctl mock faults clear',
  ).action(async () => (await adminActions()).faultsSet(ctx, []));

  examples(
    mock
      .command('reset')
      .description('put a running mock back to its start-up state (defaults and seed)')
      .option('-y, --yes', 'do not ask for confirmation'),
    'ksctl mock reset',
    'ksctl mock reset --yes',
  ).action(async (options: { yes?: boolean }) => (await adminActions()).reset(ctx, options.yes));

  const state = examples(
    mock
      .command('state')
      .description('check a --state directory, or recover what verifies from a damaged one'),
    'ksctl mock state check ./mock-state',
    'ksctl mock state recover ./mock-state --to ./mock-state-recovered',
  );
  examples(
    state
      .command('check')
      .description(
        'check every file of a state directory (checksums, sequence, headers); exit 3 naming each problem',
      )
      .argument('<dir>', 'the --state directory'),
    'ksctl mock state check ./mock-state',
  ).action(async (dir: string) => (await stateActions()).check(ctx, dir));
  examples(
    state
      .command('recover')
      .description(
        'copy every record that verifies into a new state directory, and say what was dropped (DIR is left as it is)',
      )
      .argument('<dir>', 'the damaged --state directory')
      .requiredOption('--to <new>', 'the new state directory (must not exist or be empty)'),
    'ksctl mock state recover ./mock-state --to ./mock-state-recovered',
  ).action(async (dir: string, options: RecoverOptions) =>
    (await stateActions()).recover(ctx, dir, options),
  );

  return mock;
}

function mockServeCommand(ctx: CommandContext): Command {
  return new Command('serve')
    .description('run the mock service until Ctrl-C (state in memory, or durable with --state)')
    .option('--host <host>', 'address to listen on (loopback by default)', '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 picks a free one', portNumber, 7878)
    .option('--seed <file>', 'YAML or JSON: tenants, keyspaces, users, tokens, markings, faults')
    .option(
      '--state <dir>',
      'keep the state in this directory: it survives restarts and kill -9 (--seed applies only to a new state)',
    )
    .option(
      '--dev-token <token>',
      'use this dev token instead of a random one (with --state: instead of the stored one)',
    )
    .option('--latency <ms>', 'delay every answer: MS or MIN-MAX')
    .option(
      '--fault <rule>',
      'a fault rule, e.g. status=503,path=/v2/dev/markings*,times=2 or code=4004,path=/v2.4/keys/fetch (repeatable; the rule keys: ksctl mock faults set --help)',
      collect,
    )
    .option('--json', 'print the connection details as one JSON object instead of the banner')
    .option(
      '--ready-file <path>',
      'write the connection details as JSON to this file once listening',
    )
    .option('--no-context', 'do not add or refresh the "mock" context')
    .option('--no-log', 'do not log each request on stderr')
    .option(
      '--no-cors',
      "do not answer browsers' cross-origin requests (web pages on other origins cannot call the mock)",
    )
    .option('--no-console', 'do not serve the console (the browser pages at /_mock/console/)')
    .option(
      '--tls',
      "speak HTTPS, with a certificate from the mock's local CA (made on first use in the configuration folder; ksctl mock ca)",
    )
    .option(
      '--tls-name <name>',
      'with --tls, an IP address or DNS name the certificate names besides localhost, 127.0.0.1 and ::1, for a phone or an emulator (repeatable)',
      collect,
    )
    .option('--tls-cert <file>', 'speak HTTPS with this PEM certificate (its chain may follow it)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert')
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl mock serve\n  ksctl mock serve --tls --host 0.0.0.0 --tls-name 192.168.1.20   # a phone on the LAN\n  ksctl mock serve --port 0 --json --seed seed.yaml\n  ksctl mock serve --state ./mock-state --seed seed.yaml   # restarts keep everything\n  ksctl mock serve --latency 20-200 --fault status=429,probability=0.1',
    )
    .action(async (options: ServeOptions) => (await serveActions()).serve(ctx, options));
}

function mockCaptureCommand(ctx: CommandContext): Command {
  return new Command('capture')
    .description(
      "the service's markings, every value included, as a seed for ksctl mock serve --seed (no token or URL is written)",
    )
    .option(
      '--out <file>',
      'write the seed to this file (.json: JSON, else YAML) instead of stdout',
    )
    .option('--force', 'replace an --out file that has content')
    .option(
      '--concurrency <n>',
      'requests in flight at once while reading values (default 4)',
      atLeast(1, 'a count'),
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  ksctl --context prod mock capture --out prod-seed.yaml',
        '  ksctl mock serve --seed prod-seed.yaml',
        '  ksctl --context prod mock capture -o json > prod-seed.json',
      ].join('\n'),
    )
    .action(async (options: CaptureOptions) => (await captureActions()).capture(ctx, options));
}

function mockRecordCommand(ctx: CommandContext): Command {
  return new Command('record')
    .description(
      'a recording proxy in front of the service a context names, until Ctrl-C: each exchange journaled (ksctl mock requests) with secrets redacted, and written to --out when it stops',
    )
    .requiredOption('--target <context>', 'the context of the service to record')
    .option('--host <host>', 'address to listen on (loopback by default)', '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 picks a free one', portNumber, 7879)
    .option(
      '--out <file>',
      'write the recording (JSON) here when it stops; no credential is written',
    )
    .option('--force', 'replace an --out file that has content')
    .option('--json', 'print the connection details as one JSON object instead of the banner')
    .option(
      '--ready-file <path>',
      'write the connection details as JSON to this file once listening',
    )
    .option('--no-context', 'do not add or refresh the "record" context')
    .option('--no-log', 'do not log each exchange on stderr')
    .option(
      '--profiles <file>',
      "the profile file of the app's devices: ksctl mock requests show opens their requests (password from KSCTL_PERSISTOR_PASSWORD or asked)",
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  ksctl mock record --target prod --out session.json',
        '  ksctl --context record markings list          # in another terminal, recorded',
        '  ksctl --context record mock requests --bodies --tail 5',
        '  ksctl conformance --replay session.json',
      ].join('\n'),
    )
    .action(async (options: RecordOptions) => (await recordActions()).record(ctx, options));
}

function mockTokensCommand(ctx: CommandContext): Command {
  return new Command('tokens')
    .description('mint a fresh STOKEN/UIDAUTH pair on a running mock (for enrollment tests)')
    .requiredOption(
      '--user <name>',
      'user the pair is for (any name; unknown users fail to enroll)',
    )
    .option('--keyspace <ks>', 'keyspace (the mock default when left out)')
    .addHelpText(
      'after',
      '\nExamples:\n  eval "$(ksctl mock tokens --user alice)" && ksctl enroll\n  ksctl mock tokens --user mallory -o json',
    )
    .action(async (options: TokensOptions) => (await adminActions()).tokens(ctx, options));
}

function mockOutboxCommand(ctx: CommandContext): Command {
  return new Command('outbox')
    .description('registration codes the portal "e-mailed" (for enroll --email), oldest first')
    .option('--to <address>', 'only the messages to this address')
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl enroll --email alice@example.com    # terminal 1: asks for the code\n  ksctl mock outbox --to alice@example.com  # terminal 2: shows it',
    )
    .action(async (options: OutboxOptions) => (await adminActions()).outbox(ctx, options));
}

function mockRequestsCommand(ctx: CommandContext): Command {
  const requests = new Command('requests')
    .description(
      "the mock's request journal: method, path, status, time taken, conversation id; --bodies adds headers and bodies",
    )
    .option('-f, --follow', 'keep printing new requests until Ctrl-C')
    .option(
      '--tail <n>',
      'show the last N requests (0: only new ones with --follow)',
      atLeast(0, 'a count'),
      100,
    )
    .option('--admin', 'include requests to the /_mock admin endpoints')
    .option(
      '--bodies',
      'show each request with its headers and bodies (the first 64 KiB of each, secrets redacted)',
    )
    .option(
      '--interval <ms>',
      'with --follow, how often to ask the mock',
      atLeast(100, 'milliseconds'),
      1000,
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  ksctl mock requests',
        '  ksctl mock requests --follow --tail 0',
        '  ksctl mock requests --bodies --tail 5',
        '  ksctl mock requests --bodies --follow --tail 0      # watch what an app sends',
        "  ksctl mock requests -o json | jq '.[] | select(.status >= 500)'",
        "  ksctl mock requests --bodies -o json | jq -r '.[-1].response.body'",
        '  ksctl mock requests show 42                         # one request, its envelope opened',
      ].join('\n'),
    )
    .action(async (options: RequestsOptions) => (await adminActions()).requests(ctx, options));
  requests.addCommand(
    new Command('show')
      .description(
        "one request of the journal described: headers and bodies, a device request's envelopes opened with the device's keys, what a registration held, and curl and ksctl lines to send it again",
      )
      .argument('<id>', 'the request id (the ID column of ksctl mock requests)')
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  ksctl mock requests show 42',
          "  ksctl mock requests show 42 -o json | jq '.opened.clear'",
          '  ksctl mock requests show 42 -o json | jq -r .curl',
        ].join('\n'),
      )
      .action(async (id: string) => (await adminActions()).requestShow(ctx, id)),
  );
  return requests;
}

function mockDevicesCommand(ctx: CommandContext): Command {
  return new Command('devices')
    .description('devices enrolled with the mock (their keys are never shown)')
    .addHelpText('after', '\nExamples:\n  ksctl mock devices\n  ksctl mock devices -o yaml')
    .action(async () => (await adminActions()).devices(ctx));
}

function mockConsoleCommand(ctx: CommandContext): Command {
  return new Command('console')
    .description(
      "open the running mock's console in the browser with a fresh sign-in link (printed where there is no browser: SSH, CI)",
    )
    .option('--print', 'print the link on stdout, never open a browser')
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl mock console\n  ksctl mock console --print\n  firefox "$(ksctl mock console --print)"',
    )
    .action(async (options: ConsoleOptions) => (await adminActions()).consoleLink(ctx, options));
}

function mockMessagesCommand(ctx: CommandContext): Command {
  return new Command('messages')
    .description('messages devices logged with /v2.4/messages (the newest the mock keeps)')
    .addHelpText(
      'after',
      "\nExamples:\n  ksctl mock messages\n  ksctl mock messages -o json | jq '.[].data'",
    )
    .action(async () => (await adminActions()).messages(ctx));
}

function mockCaCommand(ctx: CommandContext): Command {
  return new Command('ca')
    .description(
      "the path of the mock's local CA certificate (mock serve --tls makes it), to trust on devices and in other programs",
    )
    .option('--pem', 'print the certificate itself (PEM) instead of its path')
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl mock ca\n  export NODE_EXTRA_CA_CERTS="$(ksctl mock ca)"\n  ksctl mock ca --pem > ksctl-mock-ca.pem',
    )
    .action(async (options: { pem?: boolean }) =>
      (await serveActions()).caCertificate(ctx, options),
    );
}
