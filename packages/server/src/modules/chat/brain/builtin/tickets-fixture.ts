import type { ModelFile } from '@tessera/semantic';

/**
 * A second domain for the built-in brain's tests: support tickets handled by agents, and
 * satisfaction surveys that join nothing. Titles and `meta.synonyms` carry the business words
 * ("Tickets", "resolution time", "csat"), as a modeller would write them.
 */
export const ticketModelFiles: ModelFile[] = [
  {
    path: 'model/support.yml',
    content: `
cubes:
  - name: tickets
    sql_table: tickets
    title: Support tickets
    description: One row per support ticket
    joins:
      - name: agents
        relationship: many_to_one
        sql: "{CUBE}.agent_id = {agents.id}"
    measures:
      - name: count
        type: count
        title: Tickets
      - name: avg_resolution_hours
        type: avg
        sql: resolution_hours
        title: Average resolution time
        description: Hours from opening a ticket to resolving it
        meta:
          synonyms: [time to resolve, resolution time, ttr]
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: priority
        sql: priority
        type: string
      - name: channel
        sql: channel
        type: string
      - name: opened_at
        sql: opened_at
        type: time
      - name: resolution_hours
        sql: resolution_hours
        type: number
  - name: agents
    sql_table: agents
    title: Agents
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
        sql: name
        type: string
      - name: team
        sql: team
        type: string
  - name: surveys
    sql_table: surveys
    title: Satisfaction surveys
    measures:
      - name: avg_score
        type: avg
        sql: score
        title: Satisfaction score
        meta:
          synonyms: [csat, customer satisfaction]
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: submitted_at
        sql: submitted_at
        type: time
`,
  },
];

const u = (k: number) => `((hash(i, ${k}) % 1000000) / 1000000.0)`;

/** The tickets data set: deterministic (DuckDB's hash of the row number), a year and a half long. */
export const ticketDataSql = [
  `CREATE TABLE agents AS SELECT i AS id, 'Agent ' || i AS name,
     ['Billing', 'Technical', 'Sales'][1 + (i % 3)] AS team FROM range(1, 13) t(i)`,
  `CREATE TABLE tickets AS SELECT i AS id, 1 + (hash(i, 1) % 12)::INTEGER AS agent_id,
     ['low', 'normal', 'high', 'urgent'][1 + (hash(i, 2) % 4)::INTEGER] AS priority,
     ['email', 'chat', 'phone'][1 + (hash(i, 3) % 3)::INTEGER] AS channel,
     TIMESTAMP '2024-01-01' + to_seconds((${u(4)} * 530 * 86400)::BIGINT) AS opened_at,
     round(1 + ${u(5)} * 72, 1)::DOUBLE AS resolution_hours
     FROM range(1, 2001) t(i)`,
  `CREATE TABLE surveys AS SELECT i AS id, 1 + (hash(i, 6) % 5)::INTEGER AS score,
     TIMESTAMP '2024-01-01' + to_seconds((${u(7)} * 530 * 86400)::BIGINT) AS submitted_at
     FROM range(1, 401) t(i)`,
];
