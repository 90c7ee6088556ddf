// Turns schema/openapi.yaml into dist/openapi.json, the form the mock serves at
// /_mock/openapi.json: JSON parses fast and needs no YAML parser in the mock, and the document is
// read only when that path is asked for.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import YAML from 'yaml';

const source = 'schema/openapi.yaml';
const target = 'dist/openapi.json';

const document = YAML.parse(await readFile(source, 'utf8'));
if (typeof document?.openapi !== 'string' || !document.openapi.startsWith('3.1.')) {
  throw new Error(`${source} is not an OpenAPI 3.1 document`);
}
const { version } = JSON.parse(await readFile('package.json', 'utf8'));
// The document describes this version of ksctl's mock.
document.info.version = version;
await mkdir('dist', { recursive: true });
await writeFile(target, `${JSON.stringify(document)}\n`);
