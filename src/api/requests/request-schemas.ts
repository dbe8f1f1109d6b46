import { Type, type Static } from '@sinclair/typebox';

const Name = Type.String({ minLength: 1, maxLength: 200 });

export const RequestParams = Type.Object({ request_id: Type.String({ minLength: 1, maxLength: 100 }) });
export type RequestParams = Static<typeof RequestParams>;

/** `GET /requests` filters; dates are checked (and turned into id bounds) by the handler. */
export const RequestListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    model: Type.Optional(Name),
    provider: Type.Optional(Name),
    key_id: Type.Optional(Name),
    end_user: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    status: Type.Optional(Type.Union([Type.Literal('completed'), Type.Literal('failed'), Type.Literal('aborted'), Type.Literal('refused')])),
    from: Type.Optional(Type.String({ maxLength: 40 })),
    to: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);
export type RequestListQuery = Static<typeof RequestListQuery>;
