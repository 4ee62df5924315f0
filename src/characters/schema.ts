// Interface C exactly as the spec states it (sections 2.4 and 4.3); descriptions are the spec's meanings.
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
