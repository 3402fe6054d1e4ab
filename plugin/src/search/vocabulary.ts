// The type vocabulary comes from the schema's own data file, bundled at build time, so the
// plugin's filter chips never drift from what the sidecar accepts.
import schemaTypes from "../../../schema/types.json";

interface TypeEntry {
	retrievable: boolean;
}

const TYPES = (schemaTypes as { types: Record<string, TypeEntry> }).types;

/** The types search can return, in the schema's order: the panel's type chips. */
export const RETRIEVABLE_TYPES: readonly string[] = Object.freeze(
	Object.entries(TYPES)
		.filter(([, entry]) => entry.retrievable)
		.map(([name]) => name),
);
