import { serverAudits } from 'graphql-http';
import { startCharactersService } from '../helpers/characters-fixtures';

type Service = Awaited<ReturnType<typeof startCharactersService>>;

// The MAYs refused on purpose: GETs without the CSRF preflight header (the audit sends none).
const refusedOnPurpose = ['5A70', 'D6D5', '6A70'];

describe('GraphQL over HTTP audit (graphql-http serverAudits) of the characters endpoint', () => {
  let service: Service;

  beforeAll(async () => {
    service = await startCharactersService('pglite');
  });
  afterAll(() => service.close());

  const audits = serverAudits({ url: () => service.url });

  it.each(audits.filter((audit) => !audit.name.startsWith('MAY')).map((audit) => [audit.name, audit]))(
    '%s',
    async (_name, audit) => {
      const result = await audit.fn();
      expect({ status: result.status, reason: result.status === 'ok' ? undefined : result.reason }).toEqual({
        status: 'ok',
        reason: undefined,
      });
    },
  );

  it('passes every MAY but the GETs without a preflight header', async () => {
    const mays = audits.filter((audit) => audit.name.startsWith('MAY'));
    const results = await Promise.all(mays.map((audit) => audit.fn()));
    expect(results.filter((result) => result.status !== 'ok').map((result) => result.id)).toEqual(
      refusedOnPurpose,
    );
  });
});
