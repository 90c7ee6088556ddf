/** HTTP methods, as ksctl names them. */

/** The methods ksctl api sends and a mock fault rule may name. */
export const HTTP_METHODS: readonly string[] = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
];
