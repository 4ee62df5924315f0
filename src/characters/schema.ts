// The characters schema: the types, queries and mutation order systems use; descriptions give each meaning.
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
    name: String!
    id: String
    isHero: Boolean
    cliqueType: CliqueType!
  }

  type Query {
    character(id: ID!): Character
    characters(cliqueType: CliqueType!): [Character!]
  }

  type Mutation {
    upsertCharacter(input: CharacterInput!): Character!
  }
`;
