import type { GraphQLError, GraphQLFormattedError } from 'graphql';

/**
 * Errors in the words and shape Shopify's Admin API (graphql-ruby) answers them, for what graphql-js finds when it
 * validates a document or coerces its variables against Shopify's schema: HTTP 200, `errors`, no `data`, nothing run.
 * The common cases are translated (an unknown field or argument, a missing argument, a variable that does not
 * coerce); anything else keeps graphql-js's message with Shopify's shape.
 */

type ShopifyError = GraphQLFormattedError & { extensions?: Record<string, unknown> };

export function shopifyValidationError(error: GraphQLError): ShopifyError {
  const locations = error.locations?.map((l) => ({ line: l.line, column: l.column }));
  const base = (message: string, extensions: Record<string, unknown>): ShopifyError => ({ message, ...(locations ? { locations } : {}), extensions });
  let m = /^Cannot query field "([^"]+)" on type "([^"]+)"\./.exec(error.message);
  if (m) return base(`Field '${m[1]}' doesn't exist on type '${m[2]}'`, { code: 'undefinedField', typeName: m[2], fieldName: m[1] });
  m = /^Unknown argument "([^"]+)" on field "([^".]+)\.([^"]+)"\./.exec(error.message);
  if (m) return base(`Field '${m[3]}' doesn't accept argument '${m[1]}'`, { code: 'argumentNotAccepted', name: m[3], typeName: 'Field', argumentName: m[1] });
  m = /^Field "([^"]+)" argument "([^"]+)" of type "([^"]+)" is required, but it was not provided\./.exec(error.message);
  if (m) return base(`Field '${m[1]}' is missing required arguments: ${m[2]}`, { code: 'missingRequiredArguments', className: 'Field', name: m[1], arguments: m[2] });
  m = /^Unknown type "([^"]+)"\./.exec(error.message);
  if (m) return base(`No such type ${m[1]}, so it can't be a fragment condition`, { code: 'undefinedType', typeName: m[1] });
  m = /^Variable "\$([^"]+)" is never used/.exec(error.message);
  if (m) return base(`Variable $${m[1]} is declared by ${operationName(error) ?? 'anonymous query'} but not used`, { code: 'variableNotUsed', variableName: m[1] });
  return base(error.message, { code: 'validationError' });
}

/** A variable that does not coerce: `Variable $first of type Int! was provided invalid value`, with the problems. */
export function shopifyVariableError(error: GraphQLError, variables: Record<string, unknown>, typeOf: (name: string) => string | undefined): ShopifyError {
  const name = /^Variable "\$([^"]+)"/.exec(error.message)?.[1];
  const type = (name !== undefined ? typeOf(name) : undefined) ?? /type "([^"]+)"/.exec(error.message)?.[1];
  const value = name !== undefined ? variables[name] ?? null : null;
  const detail = error.message.replace(/^Variable "\$[^"]+" got invalid value .*?; /, '').replace(/^Variable "\$[^"]+" of (?:required |non-null )?type "[^"]+" was not provided\.$/, 'Expected value to not be null');
  // graphql-ruby's wording for a scalar that does not coerce.
  const scalar = /^(\w+) cannot represent (?:a )?non[- ]\w+ value: (.*)$/.exec(detail);
  const explanation = scalar ? `Could not coerce value ${scalar[2]} to ${scalar[1]}` : detail;
  return {
    message: `Variable $${name ?? '?'} of type ${type ?? '?'} was provided invalid value`,
    ...(error.locations ? { locations: error.locations.map((l) => ({ line: l.line, column: l.column })) } : {}),
    extensions: { code: 'INVALID_VARIABLE', value, problems: [{ path: [], explanation }] },
  };
}

function operationName(error: GraphQLError): string | undefined {
  const node = error.nodes?.[0];
  return node && 'name' in node && node.name && typeof node.name === 'object' && 'value' in node.name ? `query '${String(node.name.value)}'` : undefined;
}
