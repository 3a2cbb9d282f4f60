/** A remote schema's schema as SDL, as Engine serves it. */
import { buildClientSchema, printSchema, type IntrospectionQuery } from 'graphql';
import { metadata as callMetadata } from '../../api.ts';

/** The remote's schema as Engine serves it (customized), as SDL. */
export async function remoteSdl(name: string): Promise<string> {
  const r = await callMetadata<{ data: IntrospectionQuery }>('introspect_remote_schema', { name });
  return printSchema(buildClientSchema(r.data));
}
