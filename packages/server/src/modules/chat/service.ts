import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { canReachDeployment, type Principal } from '../../auth/principal.ts';
import type { ChatRunRow } from '../../db/schema.ts';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '../../errors/domain-errors.ts';
import { embedViewer } from '../dashboard-data/viewer.ts';
import { decideBranch } from '../data/branch.ts';
import type { DataCaller } from '../data/caller.ts';
import type { DataService } from '../data/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { AgentsService } from './agents/service.ts';
import { type ConversationMessage, createBrain } from './brain/index.ts';
import { messagesOfLog, progressOfLog, turnOfRun } from './history.ts';
import type { LiveRun, LiveRuns } from './live-runs.ts';
import type { ChatRepository, ThreadOwner } from './repository.ts';
import { type ChatRequest, checkSessionSettings, type SessionSettingsInput } from './request.ts';
import { type ChatSession, resolveSession, type SessionDeps, sameOwner } from './session.ts';
import { dataTools } from './tools.ts';
import { serializeConversation, stateOf, type TurnEnd, writeTurn } from './turn.ts';
import {
  abortedLine,
  type ChatLine,
  cutoffLine,
  errorLine,
  noUsage,
  stateLine,
  suspendedLine,
  usageLine,
  usageOfLine,
  userLine,
} from './wire.ts';

export interface ChatServiceDeps extends Omit<SessionDeps, 'repository'> {
  repository: ChatRepository;
  agents: AgentsService;
  deployments: DeploymentsService;
  data: DataService;
  live: LiveRuns;
}

/**
 * How often this process renews the lease of its runs and looks whether the abort endpoint, on
 * another replica, asked one to stop (migration 0012-chat-leases).
 */
const LEASE_RENEW_MS = 1_000;
/** A run whose lease was not renewed for this long belongs to a process that died. */
const LEASE_SECONDS = 30;
/** How often each replica looks for such runs (besides at start). */
const SWEEP_MS = 10_000;
/** How long shutting down waits for runs to reach a step boundary before cutting them. */
const SUSPEND_GRACE_MS = 10_000;
/** Reference "Suspensions": a suspended turn stays resumable for 24 hours. */
const RESUMABLE_MS = 24 * 3600_000;

interface Target {
  tenantId: number;
  agent: Awaited<ReturnType<AgentsService['require']>>;
}

/**
 * Chat turns (spec 4.6, DESIGN.md "Chat agent"). A turn is a run with an append-only log; every
 * response replays the log from its start and then follows it, so that a client sending the same
 * `messageId` again reads the same run. A client disconnect never stops a run; the abort
 * endpoint does, and so does this process shutting down (the run is then suspended and the same
 * request resumes it).
 */
export class ChatService {
  private readonly timers: NodeJS.Timeout[] = [];
  private sweeping: Promise<void> | undefined;

  constructor(private readonly deps: ChatServiceDeps) {}

  /** The lines of the response, as JSON texts: checks and the session come first (errors are 4xx). */
  async open(
    principal: Principal,
    params: { accountName: string; agentId: number },
    body: ChatRequest,
    log: FastifyBaseLogger,
  ): Promise<(signal: AbortSignal) => AsyncGenerator<string, void>> {
    const target = await this.target(principal, params);
    const embedded = embedSession(principal, body.sessionSettings);
    if (body.sessionSettings) checkSessionSettings(body.sessionSettings);
    const branch = branchOf(body);
    const deployment = await this.deps.deployments.require(target.tenantId, target.agent.deployment_id);
    // An unknown thread (404) or another user's (403) is refused before the session writes
    // anything: resolving the session creates or extends the external user (DESIGN.md "Errors":
    // bad input changes nothing).
    if (body.chatId !== undefined)
      await this.checkThreadOwner(
        target,
        body.chatId,
        embedded?.owner ?? (body.sessionSettings as SessionSettingsInput),
      );
    const session =
      embedded ??
      (await resolveSession(
        this.deps,
        target.tenantId,
        body.sessionSettings as SessionSettingsInput,
        deployment.id,
      ));
    const caller: DataCaller = { deployment, securityContext: session.securityContext, branch };

    const repo = this.deps.repository;
    const decision = await repo.transaction(async (trx) => {
      let chatId = body.chatId;
      if (chatId === undefined) {
        chatId = randomUUID();
        await repo.insertThread(chatId, target.tenantId, target.agent.id, session.owner, trx);
      } else {
        const thread = await repo.lockThread(target.tenantId, target.agent.id, chatId, trx);
        if (!thread) throw new NotFoundError('Chat thread', 'chat_not_found');
        if (!sameOwner(session.owner, thread))
          throw new ForbiddenError('The chat thread belongs to another user', 'chat_thread_forbidden');
      }
      const runs = await repo.runs(chatId, trx);
      const same =
        body.messageId === undefined ? undefined : runs.find((r) => r.message_id === body.messageId);
      if (same) {
        // Spec 4.6 "Idempotency": the same message follows its run; a suspended one resumes.
        if (same.status !== 'suspended') return { kind: 'follow' as const, chatId, runId: same.id };
        if (Date.now() - (same.finished_at ?? same.created_at).getTime() > RESUMABLE_MS) {
          await repo.endSuspended(same.id, trx);
          return { kind: 'follow' as const, chatId, runId: same.id };
        }
        const resumed = await repo.resumeRun(same.id, trx);
        return { kind: 'start' as const, chatId, run: same, resumed };
      }
      if (body.input === undefined) return { kind: 'state' as const, chatId, runs };
      if (runs.some((r) => r.status === 'running'))
        throw new ConflictError('Streaming for thread is in progress', 'chat_streaming');
      // reference "Suspensions": a request for a different message ends the suspended turn
      for (const r of runs) if (r.status === 'suspended') await repo.endSuspended(r.id, trx);
      const messageId = body.messageId ?? `${Date.now()}-message`;
      const context = { branch, now: new Date().toISOString() };
      const run = await repo.insertRun(chatId, messageId, body.input, context, trx);
      return { kind: 'start' as const, chatId, run, resumed: undefined };
    });

    if (decision.kind === 'state') {
      const lines = await this.stateLines(decision.chatId, decision.runs);
      return async function* () {
        yield* lines;
      };
    }
    if (decision.kind === 'start') {
      const { run, chatId, resumed } = decision;
      const live = this.deps.live.start(
        { threadId: chatId, runId: run.id },
        (resumed?.lines ?? []).map((l) => l.line),
      );
      this.execute({ run, live, chatId, caller, session, agent: target.agent, log, resumed }).catch((error) =>
        log.error({ err: error }, 'chat run failed to finish'),
      );
      return (signal) => this.deps.live.follow({ threadId: chatId, runId: run.id }, signal);
    }
    const key = { threadId: decision.chatId, runId: decision.runId };
    return (signal) => this.deps.live.follow(key, signal);
  }

  /** The reference's abort: 204 once asked; the run ends with `__aborted__`. */
  async abort(
    principal: Principal,
    params: { accountName: string; agentId: number },
    body: { chatId: string; sessionSettings?: SessionSettingsInput },
  ): Promise<void> {
    const target = await this.target(principal, params);
    if (principal.embed) embedSession(principal, body.sessionSettings);
    const thread = await this.deps.repository.findThread(target.tenantId, target.agent.id, body.chatId);
    if (!thread) throw new NotFoundError('Chat thread', 'chat_not_found');
    if (principal.embed) {
      if (!sameOwner({ embedUserId: principal.embed.embedUserId }, thread))
        throw new ForbiddenError('The chat thread belongs to another user', 'chat_thread_forbidden');
    } else if (body.sessionSettings) {
      checkSessionSettings(body.sessionSettings);
      const owner = await this.findOwner(target.tenantId, body.sessionSettings);
      if (!owner || !sameOwner(owner, thread))
        throw new ForbiddenError('The chat thread belongs to another user', 'chat_thread_forbidden');
    }
    for (const run of await this.deps.repository.runs(thread.id))
      if (run.status === 'running') await this.deps.live.requestStop({ threadId: thread.id, runId: run.id });
  }

  /**
   * At start, then now and then: runs whose process died without suspending them (their lease
   * lapsed) become suspended, and every run of this process renews its lease and learns whether
   * the abort endpoint, perhaps on another replica, asked it to stop.
   */
  async startUp(log: FastifyBaseLogger): Promise<void> {
    await this.deps.live.connect(log);
    // A sweep that fails (the store unreachable for a moment, or no store at all, as when the
    // OpenAPI document is generated) must not stop the server from starting: the timer retries.
    await this.sweepLapsed(log).catch((err) => log.warn({ err }, 'chat sweep failed'));
    this.timers.push(
      setInterval(() => {
        this.renewLeases().catch((err) => log.warn({ err }, 'chat leases not renewed'));
      }, LEASE_RENEW_MS),
      setInterval(() => {
        this.sweepLapsed(log).catch((err) => log.warn({ err }, 'chat sweep failed'));
      }, SWEEP_MS),
    );
    for (const timer of this.timers) timer.unref();
  }

  /** Stops the timers of startUp (after suspendAll, as the server closes). */
  async shutDown(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await this.sweeping;
    await this.deps.live.close();
  }

  /**
   * Shutting down: every run of this process stops at its next step boundary (a tool call
   * finished, none started), or after `graceMs` wherever it is, and ends with `__suspended__`;
   * the same request resumes it (reference chat-api.yaml "Suspensions").
   */
  async suspendAll(graceMs = SUSPEND_GRACE_MS): Promise<void> {
    const runs = this.deps.live.active();
    for (const run of runs) run.requestPause();
    const all = Promise.all(runs.map((run) => ended(run)));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([all, grace]);
    clearTimeout(timer);
    for (const run of runs) if (!run.isEnded) run.stop('suspend');
    await all;
  }

  private async renewLeases(): Promise<void> {
    const live = this.deps.live.active();
    for (const row of await this.deps.repository.renewLeases(live.map((r) => r.runId)))
      if (row.stop_requested) this.deps.live.get(row.id)?.stop('abort');
  }

  private async sweepLapsed(log: FastifyBaseLogger): Promise<void> {
    if (this.sweeping) return this.sweeping;
    this.sweeping = (async () => {
      try {
        for (;;) {
          const swept = await this.deps.repository.suspendLapsed(LEASE_SECONDS, (messageId) => [
            JSON.stringify(suspendedLine(messageId)),
            JSON.stringify(usageLine(noUsage())),
          ]);
          for (const run of swept) this.deps.live.announce(run, run.lines);
          if (swept.length > 0)
            log.warn({ runs: swept.map((s) => s.runId) }, 'chat runs of a stopped process suspended');
          if (swept.length < 100) break;
        }
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  /**
   * Which agent the embed page chats with (spec 4.3 `settings.showDashboardChat`): the first agent
   * of the token's deployment, with the account name of the chat URL.
   */
  async embedAgent(principal: Principal): Promise<{ accountName: string; agentId: number }> {
    const grant = principal.embed;
    if (!grant) throw new ForbiddenError('Only an embed token asks this', 'credential_kind_not_allowed');
    const accountName = await this.deps.agents.requireChat(principal.tenantId);
    const agent = await this.deps.agents.firstOn(principal.tenantId, grant.deploymentId);
    if (!agent) throw new NotFoundError('Agent', 'agent_not_found');
    return { accountName, agentId: agent.id };
  }

  private async target(
    principal: Principal,
    params: { accountName: string; agentId: number },
  ): Promise<Target> {
    const account = await this.deps.agents.requireChat(principal.tenantId);
    if (params.accountName !== account) throw new NotFoundError('Account', 'tenant_not_found');
    const agent = await this.deps.agents.require(principal.tenantId, params.agentId);
    if (!canReachDeployment(principal, agent.deployment_id))
      throw new ForbiddenError(
        `This credential is not scoped to deployment ${agent.deployment_id}`,
        'deployment_out_of_scope',
      );
    return { tenantId: principal.tenantId, agent };
  }

  /**
   * The thread exists and belongs to the session's user, read without writing: an external user
   * not created yet owns no thread. An unknown internal user is left to resolveSession's 400.
   */
  private async checkThreadOwner(
    target: Target,
    chatId: string,
    s: SessionSettingsInput | ThreadOwner,
  ): Promise<void> {
    const thread = await this.deps.repository.findThread(target.tenantId, target.agent.id, chatId);
    if (!thread) throw new NotFoundError('Chat thread', 'chat_not_found');
    const known = 'embedUserId' in s || 'userId' in s;
    const owner = known
      ? (s as ThreadOwner)
      : await this.findOwner(target.tenantId, s as SessionSettingsInput);
    if (owner === undefined && (s as SessionSettingsInput).internalId !== undefined) return;
    if (!owner || !sameOwner(owner, thread))
      throw new ForbiddenError('The chat thread belongs to another user', 'chat_thread_forbidden');
  }

  private async findOwner(tenantId: number, s: SessionSettingsInput): Promise<ThreadOwner | undefined> {
    if (s.internalId !== undefined) {
      const user = await this.deps.repository.findAccountUser(tenantId, s.internalId.trim().toLowerCase());
      return user ? { userId: user.id } : undefined;
    }
    const user = await this.deps.repository.findExternalUser(tenantId, (s.externalId ?? '').trim());
    return user ? { embedUserId: user.id } : undefined;
  }

  /** A read of the thread (no `input`): its finished turns as complete messages, then `__state__`. */
  private async stateLines(chatId: string, runs: ChatRunRow[]): Promise<string[]> {
    const streaming = runs.some((r) => r.status === 'running');
    const suspended = runs.find((r) => r.status === 'suspended');
    const lines: ChatLine[] = [cutoffLine(chatId, streaming, suspended?.message_id)];
    const conversation = [];
    let sort = 1;
    for (const run of runs) {
      if (run.status !== 'done') continue;
      const log = (await this.deps.repository.lines(run.id)).map((l) => l.line);
      for (const message of messagesOfLog(log))
        lines.push({ ...message, isDelta: false, isInProcess: false, sort: sort++ });
      conversation.push(...turnOfRun(run, log));
    }
    lines.push(stateLine(serializeConversation(conversation), sort), usageLine(noUsage()));
    return lines.map((l) => JSON.stringify(l));
  }

  private async execute(ctx: {
    run: ChatRunRow;
    live: LiveRun;
    chatId: string;
    caller: DataCaller;
    session: ChatSession;
    agent: Target['agent'];
    log: FastifyBaseLogger;
    /** A suspended run continuing: its log so far and the usage its first part reported. */
    resumed?: { lines: { seq: number; line: string }[]; usage?: string };
  }): Promise<void> {
    const { run, live, resumed } = ctx;
    const repo = this.deps.repository;
    let seq = (resumed?.lines.at(-1)?.seq ?? -1) + 1;
    const emit = async (line: ChatLine) => {
      const text = JSON.stringify(line);
      const at = seq++;
      await repo.appendLine(run.id, at, text);
      this.deps.live.push(live, at, text);
      // Spec 4.6: each line leaves as it is written. An embedded store answers without I/O, so a
      // turn could run to its end in one stretch of promise callbacks, during which the response's
      // writes stay corked (Node uncorks on the next tick) and no other request is served.
      await new Promise<void>((resolve) => setImmediate(resolve));
    };
    const usage = (resumed?.usage && usageOfLine(resumed.usage)) || noUsage();
    let status: 'done' | 'error' | 'aborted' | 'suspended' = 'error';
    try {
      const log = (resumed?.lines ?? []).map((l) => l.line);
      const progress = resumed ? progressOfLog(log) : undefined;
      if (!resumed) {
        await emit(cutoffLine(ctx.chatId, true));
        await emit(userLine(run.message_id, run.input, 1));
      } else if (log.length < 2) {
        // the process stopped before it wrote the cutoff and the user echo
        if (log.length === 0) await emit(cutoffLine(ctx.chatId, true));
        await emit(userLine(run.message_id, run.input, 1));
      }
      for (const line of progress?.closing ?? []) await emit(line);
      const history: ConversationMessage[] = [];
      for (const r of await repo.runs(ctx.chatId)) {
        if (r.status !== 'done' || r.id === run.id) continue;
        history.push(
          ...turnOfRun(
            r,
            (await repo.lines(r.id)).map((l) => l.line),
          ),
        );
      }
      history.push({ role: 'user', content: run.input });
      let end: TurnEnd;
      if (progress?.final !== undefined) {
        // the answer was written before the process stopped: only the state is missing
        const reply = { content: progress.final, toolCalls: progress.toolCalls };
        await emit(stateLine(serializeConversation(stateOf(history, reply)), progress.nextSort));
        end = { kind: 'done' };
      } else {
        end = await writeTurn({
          brain: createBrain(this.deps.agents.brainConfig(ctx.agent)),
          tools: dataTools(this.deps.data, ctx.caller),
          instructions: ctx.agent.instructions,
          history,
          ...(progress ? { progress } : {}),
          now: turnClock(run),
          signal: live.controller.signal,
          emit,
          firstSort: progress?.nextSort ?? 2,
          shouldPause: () => live.pauseRequested,
          usage,
        });
      }
      if (end.kind === 'stopped' || end.kind === 'paused') {
        status = live.stopReason === 'suspend' ? 'suspended' : 'aborted';
        await emit(status === 'suspended' ? suspendedLine(run.message_id) : abortedLine());
      } else status = end.kind;
    } catch (error) {
      ctx.log.error({ err: error, runId: run.id }, 'chat run failed');
      status = 'error';
      await emit(errorLine('The agent could not finish this turn')).catch(() => undefined);
    } finally {
      await emit(usageLine(usage)).catch(() => undefined);
      await repo.finishRun(run.id, status).catch((err) => ctx.log.error({ err }, 'chat run not finished'));
      this.deps.live.finish(live);
    }
  }
}

/**
 * The clock of a turn: the moment it started, so that a resumed turn reads "last quarter" as
 * its first part did.
 */
function turnClock(run: ChatRunRow): Date {
  const now = (run.context as { now?: unknown }).now;
  const date = typeof now === 'string' ? new Date(now) : run.created_at;
  return Number.isNaN(date.getTime()) ? run.created_at : date;
}

/** The model branch of the turn (spec 4.6 `activeBranchName`), decided by branch.ts as for every entry point. */
function branchOf(body: ChatRequest): string {
  const requested = body.isDefaultBranch === true ? undefined : body.activeBranchName;
  try {
    // An API key carries no branch grant: chat reads the production branch, and naming another is refused.
    return decideBranch({}, requested);
  } catch (error) {
    if (error instanceof DomainError)
      throw new ForbiddenError(`activeBranchName: ${error.message}`, 'forbidden');
    throw error;
  }
}

function ended(run: LiveRun): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (run.isEnded ? resolve() : setTimeout(check, 20));
    check();
  });
}

/**
 * An embed token chats as its own session's user (spec 4.3: the embed grant names the end user,
 * their groups, attributes and security context), so a body `sessionSettings` is refused rather
 * than letting the page choose whose rows it reads; an API key must send one (spec 4.6).
 */
function embedSession(principal: Principal, s: SessionSettingsInput | undefined): ChatSession | undefined {
  const grant = principal.embed;
  if (!grant) {
    if (s === undefined)
      throw new ValidationError('sessionSettings is required', [
        { field: 'body/sessionSettings', message: 'is required' },
      ]);
    return undefined;
  }
  if (s !== undefined)
    throw new ValidationError(
      'sessionSettings is not allowed with an embed token: its session names the user',
      [{ field: 'body/sessionSettings', message: 'is not allowed with an embed token' }],
    );
  const viewer = embedViewer(principal.tenantId, grant);
  return { owner: { embedUserId: grant.embedUserId }, viewer, securityContext: viewer.securityContext };
}
