import fastifyMultipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { batchSettingsOf } from '../../batches/batch-settings.js';
import { listFiles, type FileRecord } from '../../batches/db/files.js';
import { openFileContent, readFile, refusePurpose, removeFile, storeUploadedFile } from '../../batches/manage-files.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { encodeFile } from './encode-batch.js';
import { encodeListPage } from './encode-list-page.js';

/** The most files one page of `GET /v1/files` holds (`has_more` pages on). */
const maxFilesPage = 1_000;

const FileParams = Type.Object({ file_id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
const ListQuery = Type.Object(
  {
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

/**
 * OpenAI's Files API for batch input (contract §9): `POST /v1/files` (multipart: `file`, `purpose:
 * "batch"`), `GET /v1/files` (OpenAI's list: `after`, `limit` up to 10,000, default 10,000,
 * `order`, `purpose`), `GET /v1/files/{id}`, `GET /v1/files/{id}/content`, `DELETE
 * /v1/files/{id}`. Files belong to the account; another account's id is 404.
 */
export function registerFileRoutes(app: FastifyInstance, context: AppContext): void {
  const maxBytes = batchSettingsOf(context.config).maxFileBytes;
  // Multipart parsing is scoped to the upload route, as for the image edits.
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart, { throwFileSizeLimit: false, limits: { fileSize: maxBytes, files: 1, fields: 8, fieldSize: 1024, parts: 9 } });
    scope.post('/v1/files', { config: { auth: 'key' } }, async (request, reply) => {
      if (!request.isMultipart()) throw invalidRequest('Send the file as multipart/form-data with the fields `file` and `purpose`', 'file');
      let purpose: unknown;
      let file: FileRecord | undefined;
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file') {
            part.file.resume();
            throw invalidRequest(`Unexpected file field '${part.fieldname}': send the file as \`file\``, part.fieldname);
          }
          file = await storeUploadedFile(context, request.principal!.accountId, { filename: part.filename, source: part.file, tooLarge: () => part.file.truncated });
        } else if (part.fieldname === 'purpose') {
          purpose = part.value;
        }
      }
      if (purpose !== 'batch') {
        if (file) await removeFile(context, file.accountId, file.id);
        throw purpose === undefined ? invalidRequest('Missing field `purpose`: send "batch"', 'purpose') : refusePurpose(purpose);
      }
      if (!file) throw invalidRequest('Missing field `file`: a JSONL file of batch requests', 'file');
      return reply.send(encodeFile(file));
    });
  });

  app.get('/v1/files', { schema: { querystring: ListQuery }, config: { auth: 'key' } }, async (request) => {
    const query = request.query as { after?: string; limit?: number; order?: 'asc' | 'desc'; purpose?: string };
    // OpenAI's `limit` goes to 10,000 (its default too); a page here holds at most 1,000 rows, so
    // one request never holds SQLite's thread long, and `has_more` sends a paging client on.
    const limit = Math.min(query.limit ?? maxFilesPage, maxFilesPage);
    const rows = await listFiles(context.store.db, request.principal!.accountId, { limit: limit + 1, after: query.after, order: query.order ?? 'desc', purpose: query.purpose });
    return encodeListPage(rows, limit, encodeFile);
  });

  app.get('/v1/files/:file_id', { schema: { params: FileParams }, config: { auth: 'key' } }, async (request) => {
    const { file_id } = request.params as { file_id: string };
    return encodeFile(await readFile(context, request.principal!.accountId, file_id));
  });

  app.get('/v1/files/:file_id/content', { schema: { params: FileParams }, config: { auth: 'key' } }, async (request, reply) => {
    const { file_id } = request.params as { file_id: string };
    const { file, content } = await openFileContent(context, request.principal!.accountId, file_id);
    return reply.header('content-type', 'application/jsonl').header('content-length', String(file.bytes)).send(content);
  });

  app.delete('/v1/files/:file_id', { schema: { params: FileParams }, config: { auth: 'key' } }, async (request) => {
    const { file_id } = request.params as { file_id: string };
    const file = await removeFile(context, request.principal!.accountId, file_id);
    return { id: file.id, object: 'file', deleted: true };
  });
}
