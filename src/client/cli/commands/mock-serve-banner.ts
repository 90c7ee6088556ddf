/**
 * What `ksctl mock serve` prints once the mock listens: the banner (its URLs, token, users, the
 * CA to trust, the context written, the exports for other shells), fitted to the terminal or to
 * 80 columns, and the warning of a mock that listens beyond this machine.
 */
import type { MockInfo, MockUserInfo } from '../../../common/mock/wire.js';
import { fill, wrapCommand, wrapLines } from '../../../common/text/wrap.js';

/** Users listed in the banner; a large seed is summarised. */
const BANNER_USERS = 8;

function userLine(user: MockUserInfo): string {
  const facts = [
    user.enabled ? 'enabled' : 'disabled: enrolling fails with 40101',
    user.password === undefined ? undefined : `password ${user.password}`,
    user.email,
  ].filter((fact) => fact !== undefined);
  return `${user.name} (${facts.join(', ')})`;
}

function usersSection(users: MockUserInfo[]): string {
  if (users.length === 0) return '';
  const lines = users.slice(0, BANNER_USERS).map(userLine);
  if (users.length > BANNER_USERS) lines.push(`… and ${users.length - BANNER_USERS} more`);
  const signIn = users.find((u) => u.enabled && u.password !== undefined) ?? users[0]!;
  const indent = `\n${' '.repeat(19)}`;
  const ways: [command: string, note: string][] = [
    [`ksctl enroll --mock-user ${signIn.name}`, 'a fresh token pair'],
    [
      `ksctl enroll --username ${signIn.name} --password-file F`,
      'portal sign-in, F holds the password',
    ],
    ...(signIn.email === undefined
      ? []
      : [
          [`ksctl enroll --email ${signIn.email}`, 'the code: ksctl mock outbox'] as [
            string,
            string,
          ],
        ]),
  ];
  const longest = Math.max(...ways.map(([command]) => command.length));
  // Notes aligned when every line fits 80 columns; else each right after its command (and on a
  // line of its own under it where the two do not fit: fitBanner says).
  const aligned = ways.every(([, note]) => 19 + longest + 4 + note.length <= 80);
  const enroll = ways.map(
    ([command, note]) => `${aligned ? command.padEnd(longest) : command}  # ${note}`,
  );
  return `  Users:           ${lines.join(indent)}\n  Enroll as one:   ${enroll.join(indent)}\n`;
}

/** A command line of the banner: what may be copied to a shell (not prose that names one). */
const BANNER_COMMAND = /^(ksctl|curl|keytool|export|java) /;

/**
 * The banner within `width`, in a pipe as on a terminal: a line that fits stays as it is; a
 * command beside its label breaks with ` \` under itself, so it still runs when copied; a
 * command's note (`# …`) goes under it; anything else goes on under its text.
 */
export function fitBanner(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (line.length <= width) return [line];
      // The column where the value starts: after "  Label:   ", or under it.
      const lead = /^( *)(?:[A-Za-z][A-Za-z ]{0,20}: +)?/.exec(line)![0];
      const value = line.slice(lead.length);
      const pad = ' '.repeat(lead.length);
      const noted = /^(.*?) {2}(# .*)$/.exec(value);
      const command = noted?.[1] ?? value;
      // A line of prose may start with a command's name; a command is indented. Beside a label
      // in a narrow terminal, a command goes on between words as prose does, its words whole.
      if (lead.length === 0 || !BANNER_COMMAND.test(command) || width - lead.length < 40) {
        return wrapLines(line, width).split('\n');
      }
      const lines = wrapCommand(pad + command, width, { pairs: true, split: true });
      lines[0] = lead + lines[0]!.slice(lead.length);
      if (noted) {
        const note = fill(noted[2]!, width, { first: `${pad}  `, rest: `${pad}    ` });
        const last = lines.at(-1)!;
        if (last.length + 2 + noted[2]!.length <= width)
          lines[lines.length - 1] = `${last}  ${noted[2]}`;
        else lines.push(...note);
      }
      return lines;
    })
    .join('\n');
}

/** Where the state lives (`--state`, `--seed`), for the banner's first lines. */
export function stateNote(options: { state?: string; seed?: string }, restored: boolean): string {
  if (options.state === undefined) return 'its state lives in memory.';
  if (!restored) {
    return `its state is kept in ${options.state}\n(a new state${options.seed ? ', seeded from ' + options.seed : ''}: restarts with --state ${options.state} continue from here).`;
  }
  const seedNote = options.seed
    ? `; --seed applies only to a new state, or after \`ksctl mock reset\``
    : '';
  return `its state is kept in ${options.state}\n(restored${seedNote}).`;
}

function consoleSection(info: MockInfo): string {
  if (info.consoleUrl === undefined) return '';
  // The link on a line of its own: beside its label it would run past 80 columns.
  return `  Console:         signs one browser in; another link: ksctl mock console\n    ${info.consoleUrl}\n`;
}

/**
 * What the banner starts with when the mock listens beyond this machine: who can use what, and
 * how to make it safer.
 */
export function exposureWarning(
  options: { host: string },
  info: MockInfo,
  restored: boolean,
): string {
  const port = new URL(info.url).port;
  // A restored state keeps its users as they were stored; a reset gives them random ones.
  const random = restored
    ? ' Its users keep the passwords stored in the state (a reset gives the default users random ones): check them below.'
    : " Its default users (alice, bob) got random passwords for this run, shown below once; users a seed names keep the seed's.";
  const tls = info.url.startsWith('https:')
    ? ''
    : ' Add --tls so that tokens and passwords do not cross the network in clear text.';
  return `WARNING: the mock listens on ${options.host}, beyond this machine: every device that can reach port ${port} can use the dev token and sign in as the mock's users.${random}${tls}`;
}

function tlsSection(info: MockInfo, width: number): string {
  if (info.caFile === undefined || info.trust === undefined) return '';
  const indent = `\n${' '.repeat(19)}`;
  const { node, curl, java, android, ios } = info.trust;
  const section = `  CA certificate:  ${info.caFile}${indent}(ksctl trusts it for the context it writes; ksctl mock ca --pem prints it)
  Trust it:        Node:    ${node}${indent}curl:    ${curl}${indent}Java:    ${java}${indent}Android: ${android}${indent}iOS:     ${ios}
`;
  if (section.split('\n').every((line) => line.length <= width)) return section;
  // Too narrow for the columns (a CA file under a home folder is 70 columns of `export …`):
  // each kind's lines under its name, a command broken as one that still runs when copied.
  const commands = (...lines: string[]) =>
    lines.flatMap((line) => wrapCommand(`      ${line}`, width, { pairs: true, split: true }));
  const prose = (text: string) => fill(text, width, { first: '      ', rest: '      ' });
  const [keytool, ...then] = java.split(', then ');
  return [
    ...(19 + info.caFile.length <= width
      ? [`  CA certificate:  ${info.caFile}`]
      : ['  CA certificate:', `    ${info.caFile}`]),
    ...fill('(ksctl trusts it for the context it writes; ksctl mock ca --pem prints it)', width, {
      first: '    ',
    }),
    '  Trust it:',
    '    Node:',
    ...commands(node),
    '    curl:',
    ...commands(curl),
    '    Java:',
    ...commands(keytool!, ...then.map((next) => `then ${next}`)),
    '    Android:',
    ...prose(android),
    '    iOS:',
    ...prose(ios),
    '',
  ].join('\n');
}

export function banner(
  info: MockInfo,
  contextNote: string,
  state: string,
  warning: string | undefined,
  width: number,
): string {
  const caExports =
    info.caFile === undefined
      ? ''
      : `  export KSCTL_CA_FILE='${info.caFile}'\n  export NODE_EXTRA_CA_CERTS='${info.caFile}'\n`;
  return `${warning === undefined ? '' : `${warning}\n\n`}ksctl mock service is running. Press Ctrl-C to stop it; ${state}

  URL:             ${info.url}
  Markings API:    ${info.baseUrl}
  Enrollment API:  ${info.apiUrl}
  Enrollment URL:  ${info.enrollmentUrl}
  Key naming:      ${info.knsUrl}
  Tenant:          ${info.tenantId}
  Keyspace:        ${info.keyspace}
  Dev token:       ${info.token}
${tlsSection(info, width)}${consoleSection(info)}${usersSection(info.users)}
${contextNote}
For other shells and tools:

  export KSCTL_BASE_URL='${info.baseUrl}'
  export KSCTL_TOKEN='${info.token}'
${caExports}`;
}
