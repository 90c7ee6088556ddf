/**
 * Answers written by hand for servers that stand in for the service (compressed, broken or
 * hostile ones), so each test sends the same bytes the service would.
 */

/** A listing of one marking ("squeezed"), as the service sends it. */
export const ONE_MARKING_LISTING = JSON.stringify({
  totalResults: 1,
  skip: 0,
  limit: 100,
  Resources: [
    {
      id: '65a1f0c2e4b0a1b2c3d4e5f6',
      name: 'squeezed',
      public: false,
      adminOnly: false,
      defaultValue: null,
      detail: { description: 'sent compressed', valueCount: 0, values: [] },
      _createdTs: 1763780000000,
      _updatedTs: 1763780000000,
      _version: 1,
    },
  ],
});
