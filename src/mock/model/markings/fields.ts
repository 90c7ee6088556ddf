/**
 * The fields a list filter reads from stored markings and values, and the exact name an AND
 * filter asks for (which the store looks up through its name index instead of scanning).
 */
import type {
  ListFilter,
  MarkingFilterField,
  ValueFilterField,
} from '../../../common/markings/filters.js';
import type { FieldReader } from './filter-match.js';
import type { StoredMarking, StoredValue } from './stored.js';

/** The name an AND filter requires exactly, if it has a `name=` term. */
export function exactName(filter: ListFilter): string | undefined {
  const term = filter.terms.find((t) => t.field === 'name' && t.op === 'eq' && !t.negated);
  return term === undefined ? undefined : (term.operands[0] as string);
}

/** What markings and values share: every filterable field of a value. */
type CommonFields = Pick<StoredValue, 'id' | 'name' | 'description' | 'createdTs' | 'updatedTs'>;

export const readValueField: FieldReader<CommonFields> = (v, field) => {
  switch (field as ValueFilterField) {
    case 'id':
      return v.id;
    case 'name':
      return v.name;
    case 'description':
      return v.description;
    case '_createdTs':
      return v.createdTs;
    case '_updatedTs':
      return v.updatedTs;
  }
};

export const readMarkingField: FieldReader<StoredMarking> = (m, field) => {
  switch (field as MarkingFilterField) {
    case 'public':
      return m.public;
    case 'adminOnly':
      return m.adminOnly;
    case 'defaultValue':
      return m.defaultValue;
    case '_createdBy':
      return m.createdBy;
    case '_updatedBy':
      return m.updatedBy;
    default:
      return readValueField(m, field);
  }
};
