import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nameProblem } from '../../src/common/markings/names.js';
import {
  DESCRIPTION_MAX_LENGTH,
  NAME_MAX_LENGTH,
  VALUES_MAX_PER_MARKING,
} from '../../src/common/markings/wire.js';
import { FILE_KEYS } from '../../src/common/markings/file-format.js';

interface SchemaObject {
  properties: Record<string, unknown>;
  required: string[];
  additionalProperties: boolean;
}

const schema = JSON.parse(readFileSync('schema/markings.schema.json', 'utf8'));
const exampleText = readFileSync('examples/markings.yaml', 'utf8');
const example = parse(exampleText) as { markings: Record<string, unknown>[] };
const valueObject = schema.$defs.value.anyOf.find(
  (choice: { type?: string }) => choice.type === 'object',
) as SchemaObject;

describe('markings JSON Schema', () => {
  it('is draft 2020-12 and names the keys the parser accepts, no more, no less', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const levels: [SchemaObject, readonly string[], string[]][] = [
      [schema, FILE_KEYS.document, ['markings']],
      [schema.$defs.marking, FILE_KEYS.marking, ['name']],
      [valueObject, FILE_KEYS.value, ['name']],
    ];
    for (const [object, keys, required] of levels) {
      expect(Object.keys(object.properties).sort()).toEqual([...keys].sort());
      expect(object.required).toEqual(required);
      expect(object.additionalProperties).toBe(false);
    }
  });

  it('describes every key for editors', () => {
    const described = [schema, schema.$defs.marking, valueObject].flatMap((object: SchemaObject) =>
      Object.entries(object.properties).map(([key, property]) => [
        key,
        typeof (property as { description?: unknown }).description,
      ]),
    );
    for (const [key, type] of described) expect(`${key}: ${type}`).toBe(`${key}: string`);
  });

  it('has the service limits', () => {
    expect(schema.$defs.name.maxLength).toBe(NAME_MAX_LENGTH);
    expect(schema.$defs.description.maxLength).toBe(DESCRIPTION_MAX_LENGTH);
    expect(schema.$defs.marking.properties.values.maxItems).toBe(VALUES_MAX_PER_MARKING);
  });

  it('accepts the same names as ksctl', () => {
    const pattern = new RegExp(schema.$defs.name.pattern, 'u');
    for (const name of ['ok', 'with space', 'é', ' lead', 'trail ', 'tab\there', 'x\u0085y']) {
      expect(`${JSON.stringify(name)}: ${pattern.test(name)}`).toBe(
        `${JSON.stringify(name)}: ${nameProblem(name) === undefined}`,
      );
    }
  });

  it('agrees with the example: the example uses only schema keys, and every one of them', () => {
    expect(exampleText.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../schema/markings.schema.json',
    );
    expect(Object.keys(example)).toEqual(['markings']);
    const markingKeys = new Set(example.markings.flatMap((marking) => Object.keys(marking)));
    expect([...markingKeys].sort()).toEqual(Object.keys(schema.$defs.marking.properties).sort());
    const valueKeys = new Set(
      example.markings
        .flatMap((marking) => (marking.values as unknown[] | undefined) ?? [])
        .flatMap((value) =>
          typeof value === 'object' && value !== null ? Object.keys(value) : [],
        ),
    );
    expect([...valueKeys].sort()).toEqual(Object.keys(valueObject.properties).sort());
  });
});
