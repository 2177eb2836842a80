import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openMigratedStore } from '../bootstrap/runtime.ts';
import { loadConfig } from '../config/config.ts';
import { SecretBox } from '../crypto/secrets.ts';
import { unconnectedDb } from '../db/database.ts';
import {
  createApiKeyCommand,
  createTenantCommand,
  createUserCommand,
  resetPasswordCommand,
  UsageError,
} from './admin.ts';

const usage = `Usage: tessera <command> [options]

Commands:
  start                         Run the server (PORT, HOST, DATABASE_URL, TESSERA_DATA_DIR, ...)
  migrate [--json]              Apply database migrations and exit
  create-user --email E [--username U] [--role admin|developer|viewer] [--json]
  create-api-key [--email E] [--name N] [--deployments 1,2] [--kind api|scim] [--expires-at ISO] [--json]
  reset-password --email E [--json]
                                Give a user a new generated password (printed once); ends their sessions
  create-tenant --name N [--domain D] [--email E] [--json]
                                Add an account with its admin and an admin API key
  content export --deployment ID --out DIR [--email E] [--json]
                                Write the deployment's folders, workbooks, dashboards, reports,
                                notifications and grants as YAML files (content kept as code)
  content plan --deployment ID --dir DIR [--email E] [--json]
                                Show what applying DIR would create, change and delete
  content apply --deployment ID --dir DIR [--email E] [--json]
                                Make the deployment's content what DIR describes, in one transaction
  openapi [--write | --check]   Print, write or check packages/server/openapi.json
`;

const committedOpenApi = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../openapi.json');

async function main(argv: string[]): Promise<number> {
  const [command, ...afterCommand] = argv;
  // `content` has a subcommand (export, plan, apply) before its options.
  const sub = command === 'content' ? afterCommand[0] : undefined;
  const rest = command === 'content' ? afterCommand.slice(1) : afterCommand;
  const { values } = parseArgs({
    args: rest,
    options: {
      json: { type: 'boolean', default: false },
      email: { type: 'string' },
      username: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      deployments: { type: 'string' },
      kind: { type: 'string' },
      'expires-at': { type: 'string' },
      domain: { type: 'string' },
      write: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      deployment: { type: 'string' },
      out: { type: 'string' },
      dir: { type: 'string' },
    },
    strict: true,
  });
  const out = (human: string, data: unknown) => console.log(values.json ? JSON.stringify(data) : human);

  switch (command) {
    case 'start': {
      const config = loadConfig();
      // The store opens while the server's modules load (start.ts and the application: a chunk
      // of their own in the build, as for the other commands, which need neither): PGlite's open
      // waits on its files and on compiling its WebAssembly, time that loading fills. 2.05 s to
      // 1.91 s to the printed addresses, on a second start (issue 20, item 6).
      const store = openMigratedStore(config);
      store.catch(() => undefined);
      const { startServer } = await import('./start.ts');
      const server = await startServer(config, console.log, store);
      const shutdown = (signal: string) => {
        console.log(`Received ${signal}: finishing in-flight requests, then closing the store`);
        server.stop().then(
          () => process.exit(0),
          (error) => {
            console.error(error);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
      return -1;
    }
    case 'migrate': {
      const store = await openMigratedStore(loadConfig());
      await store.close();
      out('Migrations applied', { ok: true });
      return 0;
    }
    case 'create-user': {
      const user = await createUserCommand(loadConfig(), values);
      out(`Created user ${user.id} <${user.email}> with role ${user.role}`, user);
      return 0;
    }
    case 'create-api-key': {
      const key = await createApiKeyCommand(loadConfig(), { ...values, expiresAt: values['expires-at'] });
      out(`Created API key ${key.id} (${key.name}); shown once:\n${key.key}`, key);
      return 0;
    }
    case 'reset-password': {
      const reset = await resetPasswordCommand(loadConfig(), values);
      out(`New password for ${reset.email}, shown once:\n${reset.password}`, reset);
      return 0;
    }
    case 'create-tenant': {
      const tenant = await createTenantCommand(loadConfig(), values);
      out(
        `Created tenant ${tenant.name} (admin ${tenant.adminEmail}); admin API key, shown once:\n${tenant.adminApiKey}`,
        tenant,
      );
      return 0;
    }
    case 'content': {
      // The application loads for this command only (a chunk of its own, as for `start`).
      const { contentCommand } = await import('./content.ts');
      const result = await contentCommand(loadConfig(), sub, values);
      const write = result.exitCode === 0 ? console.log : console.error;
      write(values.json ? JSON.stringify(result.data) : result.text);
      return result.exitCode;
    }
    case 'openapi': {
      const [{ buildApp }, { openApiText }] = await Promise.all([
        import('../http/app.ts'),
        import('../http/openapi.ts'),
      ]);
      const config = { ...loadConfig({}), publicUrl: 'http://127.0.0.1:4000' };
      const { app } = await buildApp({
        config,
        db: await unconnectedDb(),
        secrets: new SecretBox('openapi'),
        logger: false,
      });
      await app.ready();
      const text = openApiText(app);
      await app.close();
      if (values.write) {
        writeFileSync(committedOpenApi, text);
        console.log(`Wrote ${committedOpenApi}`);
      } else if (values.check) {
        if (readFileSync(committedOpenApi, 'utf8') !== text) {
          console.error(
            'packages/server/openapi.json is out of date: run `npm run openapi:write` and commit it',
          );
          return 1;
        }
        console.log('OpenAPI document matches the routes');
      } else {
        process.stdout.write(text);
      }
      return 0;
    }
    default:
      process.stderr.write(usage);
      return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    console.error(error instanceof UsageError ? error.message : error);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
