import * as proto from '@temporalio/proto';
import type { Root } from 'protobufjs';
import { fromJson, toJson } from 'protobufjs/ext/protojson';

type History = proto.temporal.api.history.v1.IHistory;

// @temporalio/proto's root is a protobufjs reflection root at run time; its generated types leave that out.
const historyType = (proto as unknown as Root).lookupType('temporal.api.history.v1.History');

/** A history in the JSON form `temporal workflow show --output json` writes (test/histories/*.json). */
export function historyFromJson(json: unknown): History {
  const history = fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('not a history');
  return history as History;
}

/** The same JSON form, as text. */
export function historyToJson(history: History): string {
  return JSON.stringify(
    toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)),
    null,
    2,
  );
}
