import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  type GraphQLNamedType,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

export interface QueryLimits {
  /** Deepest field nesting an operation may have; `{ character(id: 1) { name } }` has depth 2. */
  maxDepth: number;
  /** Highest cost an operation may have. */
  maxCost: number;
  /** How many items a list field is assumed to return when costing what is selected under it. */
  listSize: number;
}

/**
 * Rejects operations too deep or too costly before they run. Each field costs 1, and what is selected
 * under a list field counts `listSize` times; aliases count, so a thousand copies of one field under
 * different names are refused like a deep query. Introspection (`__schema`, `__type`) is left out: it is
 * refused outright in production and must stay usable by GraphiQL in development.
 */
export function queryLimitsRule(limits: QueryLimits): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const rootType = context.getSchema().getRootType(operation.operation);
      if (!rootType) return;
      const { cost, depth } = measure(context, operation.selectionSet, rootType, limits.listSize, new Set());
      if (depth > limits.maxDepth) {
        context.reportError(
          new GraphQLError(`query depth ${depth} exceeds the limit of ${limits.maxDepth}`, {
            nodes: [operation],
            extensions: { code: 'QUERY_TOO_DEEP', depth, maxDepth: limits.maxDepth },
          }),
        );
      }
      if (cost > limits.maxCost) {
        context.reportError(
          new GraphQLError(`query cost ${cost} exceeds the limit of ${limits.maxCost}`, {
            nodes: [operation],
            extensions: { code: 'QUERY_TOO_COSTLY', cost, maxCost: limits.maxCost },
          }),
        );
      }
    },
  });
}

interface Measure {
  cost: number;
  depth: number;
}

function measure(
  context: ValidationContext,
  selectionSet: SelectionSetNode,
  parentType: GraphQLNamedType,
  listSize: number,
  fragmentsOnPath: Set<string>,
): Measure {
  const total: Measure = { cost: 0, depth: 0 };
  const add = (part: Measure, multiplier = 1, extraDepth = 0) => {
    total.cost += part.cost * multiplier;
    total.depth = Math.max(total.depth, part.depth + extraDepth);
  };
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === '__schema' || selection.name.value === '__type') continue;
      const fields = isObjectType(parentType) || isInterfaceType(parentType) ? parentType.getFields() : {};
      const fieldType = fields[selection.name.value]?.type;
      const below =
        selection.selectionSet && fieldType
          ? measure(context, selection.selectionSet, getNamedType(fieldType), listSize, fragmentsOnPath)
          : { cost: 0, depth: 0 };
      total.cost += 1;
      add(below, fieldType && isListType(getNullableType(fieldType)) ? listSize : 1, 1);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const typeName = selection.typeCondition?.name.value;
      const type = (typeName && context.getSchema().getType(typeName)) || parentType;
      add(measure(context, selection.selectionSet, type, listSize, fragmentsOnPath));
    } else {
      const name = selection.name.value;
      const fragment = context.getFragment(name);
      // A cycle is reported by graphql's own NoFragmentCyclesRule; here it must only not recurse forever.
      if (!fragment || fragmentsOnPath.has(name)) continue;
      const type = context.getSchema().getType(fragment.typeCondition.name.value) ?? parentType;
      fragmentsOnPath.add(name);
      add(measure(context, fragment.selectionSet, type, listSize, fragmentsOnPath));
      fragmentsOnPath.delete(name);
    }
  }
  return total;
}
