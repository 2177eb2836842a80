import { useCreateAgent, useDeleteAgent, useListAgents, useUpdateAgent } from '@tessera/client/react';
import { useState } from 'react';
import { describeError } from '../api/errors.ts';
import { PageHeader } from '../layout/page.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Field, SelectField } from '../ui/field.tsx';
import { FormDialog, useFormDialog, useListDialogs } from '../ui/form-dialog.tsx';
import { SettingsList } from '../ui/settings-list.tsx';
import { DeploymentChoice } from './deployment-choice.tsx';
import './settings-admin.css';

type Brain = { kind: 'builtin' } | { kind: 'openai'; baseURL: string; model: string; hasApiKey: boolean };

interface Agent {
  id: number;
  name: string;
  deploymentId: number;
  instructions: string;
  brain: Brain;
}

const brainOptions = [
  { value: 'builtin', label: 'Built-in planner' },
  { value: 'openai', label: 'OpenAI-compatible endpoint' },
] as const;

/** What the list says of an agent's brain: its key only as set or not, never its value. */
function brainSummary(brain: Brain): string {
  if (brain.kind === 'builtin') return 'Built-in planner';
  return `${brain.model} at ${brain.baseURL} · API key ${brain.hasApiKey ? 'set' : 'not set'}`;
}

/**
 * `/settings/chat-agents` (admins and developers, as the API allows writing agents; issue 22 item
 * 8, DESIGN.md "Chat agent"): a deployment's chat agents, their instructions and brain. The model
 * endpoint's API key is write-only: the page shows only whether one is set.
 */
export function ChatAgentsPage() {
  return (
    <>
      <PageHeader title="Chat agents" subtitle="Who answers questions in Chat, for each deployment." />
      <DeploymentChoice label="Agents of deployment">
        {(deploymentId) => <AgentsOf deploymentId={deploymentId} />}
      </DeploymentChoice>
    </>
  );
}

function AgentsOf({ deploymentId }: { deploymentId: number }) {
  const agents = useListAgents({ params: { query: { first: 1000 } } });
  const dialogs = useListDialogs<Agent>();
  const items = agents.data?.items.filter((agent) => agent.deploymentId === deploymentId);
  return (
    <>
      <div className="settings-toolbar">
        <button type="button" className="button button-primary" onClick={() => dialogs.setEditing('new')}>
          Add agent
        </button>
      </div>
      {dialogs.message && (
        <p className="notice" role="status">
          {dialogs.message}
        </p>
      )}
      <SettingsList
        label="Chat agents"
        query={agents}
        items={items}
        keyOf={(agent) => agent.id}
        nameOf={(agent) => agent.name}
        details={(agent) => brainSummary(agent.brain)}
        empty="No chat agents on this deployment yet."
        emptyHint="Add one to answer questions about its data in Chat."
        onEdit={dialogs.setEditing}
        onDelete={dialogs.setDeleting}
      />
      {dialogs.editing && (
        <AgentDialog
          deploymentId={deploymentId}
          agent={dialogs.editing === 'new' ? null : dialogs.editing}
          onDone={dialogs.done}
          onClose={() => dialogs.setEditing(null)}
        />
      )}
      {dialogs.deleting && (
        <DeleteAgentDialog
          agent={dialogs.deleting}
          onDone={dialogs.done}
          onClose={() => dialogs.setDeleting(null)}
        />
      )}
    </>
  );
}

/** The problems of the brain's fields: the server names them `brain/model` or the brain whole. */
function brainField(fields: Record<string, string>, name: string): string | undefined {
  return fields[`brain/${name}`];
}

function AgentDialog(props: {
  deploymentId: number;
  agent: Agent | null;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const old = props.agent;
  const oldBrain = old?.brain.kind === 'openai' ? old.brain : null;
  const { form, set, problems, fields, onError, handleSubmit } = useFormDialog(() => ({
    name: old?.name ?? '',
    instructions: old?.instructions ?? '',
    kind: (old?.brain.kind ?? 'builtin') as 'builtin' | 'openai',
    baseURL: oldBrain?.baseURL ?? '',
    model: oldBrain?.model ?? '',
    apiKey: '',
  }));
  const create = useCreateAgent({ onSuccess: (a) => props.onDone(`Added ${a.name}.`), onError });
  const update = useUpdateAgent({ onSuccess: (a) => props.onDone(`Saved ${a.name}.`), onError });
  const submit = handleSubmit((f) => {
    const brain =
      f.kind === 'builtin'
        ? { kind: 'builtin' as const }
        : {
            kind: 'openai' as const,
            baseURL: f.baseURL.trim(),
            model: f.model.trim(),
            // Empty: the stored key stays (the API keeps it when none is sent).
            ...(f.apiKey ? { apiKey: f.apiKey } : {}),
          };
    const body = { name: f.name.trim(), instructions: f.instructions, brain };
    if (old) update.mutate({ params: { path: { agentId: old.id } }, body });
    else create.mutate({ body: { ...body, deploymentId: props.deploymentId } });
  });
  const keyHint = oldBrain?.hasApiKey
    ? 'Set. Leave empty to keep it; it is never shown again.'
    : 'Stored encrypted; never shown again. Leave empty for a local endpoint that takes none.';
  return (
    <FormDialog
      title={old ? `Edit ${old.name}` : 'Add chat agent'}
      onClose={props.onClose}
      onSubmit={submit}
      pending={create.isPending || update.isPending}
      problems={problems}
    >
      <Field label="Name" value={form.name} onChange={set('name')} problem={fields.name} autoFocus />
      <Field
        label="Instructions"
        multiline
        value={form.instructions}
        onChange={set('instructions')}
        problem={fields.instructions}
        hint="What the agent should know and how it should answer."
      />
      <SelectField
        label="Brain"
        value={form.kind}
        options={brainOptions}
        onChange={set('kind')}
        problem={fields.brain}
      />
      {form.kind === 'openai' && (
        <>
          <Field
            label="Endpoint URL"
            type="url"
            value={form.baseURL}
            onChange={set('baseURL')}
            problem={brainField(fields, 'baseURL')}
            placeholder="https://api.openai.com/v1"
          />
          <Field
            label="Model"
            value={form.model}
            onChange={set('model')}
            problem={brainField(fields, 'model')}
          />
          <Field
            label="API key"
            type="password"
            value={form.apiKey}
            onChange={set('apiKey')}
            problem={brainField(fields, 'apiKey')}
            hint={keyHint}
          />
        </>
      )}
    </FormDialog>
  );
}

function DeleteAgentDialog(props: { agent: Agent; onDone: (message: string) => void; onClose: () => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteAgent({
    onSuccess: () => props.onDone(`Deleted ${props.agent.name}.`),
    onError: (error) => setProblem(describeError(error)),
  });
  return (
    <ConfirmDialog
      title={`Delete ${props.agent.name}?`}
      description="Its chat threads go with it. This cannot be undone."
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() => remove.mutate({ params: { path: { agentId: props.agent.id } } })}
      problem={problem}
      onClose={props.onClose}
    />
  );
}
