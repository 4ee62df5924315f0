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

export interface QueryCostLimits {
  /** Highest cost an operation may have. */
  maxCost: number;
  /** How many items a list field is assumed to return when costing what is selected under it. */
  listSize: number;
}

/**
 * Rejects operations whose estimated cost is too high before they run: each field costs 1, and what is
 * selected under a list field counts `listSize` times. Aliases count, so a query that repeats one field a
 * thousand times under different names is refused as well as a deep one.
 */
export function queryCostRule({ maxCost, listSize }: QueryCostLimits): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const rootType = context.getSchema().getRootType(operation.operation);
      if (!rootType) return;
      const cost = selectionCost(context, operation.selectionSet, rootType, listSize, new Set());
      if (cost > maxCost) {
        context.reportError(
          new GraphQLError(`query cost ${cost} exceeds the limit of ${maxCost}`, {
            nodes: [operation],
            extensions: { code: 'QUERY_TOO_COSTLY', cost, maxCost },
          }),
        );
      }
    },
  });
}

function selectionCost(
  context: ValidationContext,
  selectionSet: SelectionSetNode,
  parentType: GraphQLNamedType,
  listSize: number,
  fragmentsOnPath: Set<string>,
): number {
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const fields = isObjectType(parentType) || isInterfaceType(parentType) ? parentType.getFields() : {};
      const fieldType = fields[selection.name.value]?.type;
      const below =
        selection.selectionSet && fieldType
          ? selectionCost(context, selection.selectionSet, getNamedType(fieldType), listSize, fragmentsOnPath)
          : 0;
      cost += 1 + (fieldType && isListType(getNullableType(fieldType)) ? listSize : 1) * below;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const typeName = selection.typeCondition?.name.value;
      const type = (typeName && context.getSchema().getType(typeName)) || parentType;
      cost += selectionCost(context, selection.selectionSet, type, listSize, fragmentsOnPath);
    } else {
      const name = selection.name.value;
      const fragment = context.getFragment(name);
      // A cycle is reported by graphql's own NoFragmentCyclesRule; here it must only not recurse forever.
      if (!fragment || fragmentsOnPath.has(name)) continue;
      const type = context.getSchema().getType(fragment.typeCondition.name.value) ?? parentType;
      fragmentsOnPath.add(name);
      cost += selectionCost(context, fragment.selectionSet, type, listSize, fragmentsOnPath);
      fragmentsOnPath.delete(name);
    }
  }
  return cost;
}
