import { characterNameMaxLength, charactersPageMaxSize } from './character';

// The characters schema: the types, queries and mutation order systems use; descriptions give each meaning.
// `first` and `after` are optional additions to interface C; a query without them is the spec's query.
export const charactersSchema = /* GraphQL */ `
  enum CliqueType {
    "people who are elite, with wealthy parents"
    KOOKS
    "people eager to climb the social ladder and start anew"
    POGUES
  }

  type Character {
    id: ID!
    name: String!
    isHero: Boolean!
    cliqueType: CliqueType!
  }

  input CharacterInput {
    "1 to ${characterNameMaxLength} characters"
    name: String!
    id: String
    isHero: Boolean
    cliqueType: CliqueType!
  }

  type Query {
    character(id: ID!): Character
    """
    The clique's characters ordered by name, then id, at most ${charactersPageMaxSize} per list. The next page
    starts after the last character of this one: \`after: <its id>\`.
    """
    characters(
      cliqueType: CliqueType!
      "1 to ${charactersPageMaxSize}"
      first: Int = ${charactersPageMaxSize}
      "the id of the last character of the previous page"
      after: ID
    ): [Character!]
  }

  type Mutation {
    "Needs \`Authorization: Bearer <key>\` when the service has keys (always in production)."
    upsertCharacter(input: CharacterInput!): Character!
  }
`;
