import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 item 3: user attributes (reference groups User Attributes and User Attribute Values).
 * A definition per account and name, and a value per account user and definition; both feed
 * `serviceCloud.userAttributes` of every security context built for an account user
 * (modules/user-attributes). A value is JSON of the definition's type; the default stays text,
 * as the reference and spec 4.3 `userAttributeDefinitions` give it.
 */
const statements = `
    CREATE TABLE user_attributes (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      type text NOT NULL,
      default_value text,
      description text,
      display_name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, name)
    );

    CREATE TABLE user_attribute_values (
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      user_attribute_id integer NOT NULL REFERENCES user_attributes(id) ON DELETE CASCADE,
      value jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, user_attribute_id)
    );
    CREATE INDEX user_attribute_values_attribute ON user_attribute_values (user_attribute_id);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE user_attribute_values; DROP TABLE user_attributes');
}
