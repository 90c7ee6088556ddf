/** docs/design.md 5's exit code for each enrollment status, written out independently of the code. */
export const EXIT_BY_STATUS: Record<number, number> = {
  400: 3,
  401: 4,
  404: 5,
  409: 6,
  417: 7,
  424: 7,
  451: 7,
  500: 7,
  503: 7,
};
