import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

/** What a run's channel carries: a line once it is stored, then the end of the run. */
export type RunMessage = { seq: number; line: string } | { end: true };

/** A run across replicas: its thread (a random UUID, unique across stores) and its id. */
export interface RunKey {
  threadId: string;
  runId: number;
}

/**
 * Chat runs shared between replicas over Redis pub/sub when REDIS_URL is set (DESIGN.md "Chat
 * agent", "Chosen libraries": ioredis). The replica running a turn publishes each line after
 * storing it, then the end; a replica following that run subscribes, reads the stored log, and
 * continues with what is published, filling any gap from the store. An abort asked of any
 * replica is published to all, and the one running the turn stops it at once. A subscriber that
 * lost its connection is told when it is back (`onResync`), so that followers re-read the store
 * instead of waiting for what was published meanwhile. Channels are named by thread UUID, so
 * that installations sharing one Redis never hear each other.
 */
export class RedisFanout {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly channels = new Map<
    string,
    { listeners: Set<(message: RunMessage) => void>; subscribed: Promise<void> }
  >();
  private readonly resyncs = new Set<() => void>();
  private stopHandler: ((key: RunKey) => void) | undefined;
  private log: FastifyBaseLogger | undefined;
  private readied = false;

  /** `<TESSERA_REDIS_PREFIX>:chat`: installations sharing one Redis keep apart (ids repeat). */
  private readonly prefix: string;
  private readonly stopChannel: string;
  private readonly runChannel = (key: RunKey) => `${this.prefix}:run:${key.threadId}:${key.runId}`;

  constructor(url: string, namespace = 'tessera') {
    this.prefix = `${namespace}:chat`;
    this.stopChannel = `${this.prefix}:stop`;
    // lazyConnect: nothing is opened before the application starts (connect)
    this.pub = new Redis(url, { lazyConnect: true });
    this.sub = new Redis(url, { lazyConnect: true });
    this.sub.on('message', (channel: string, text: string) => this.receive(channel, text));
    this.sub.on('ready', () => {
      // the first ready is the start; later ones follow a reconnection, after which ioredis has
      // subscribed again but whatever was published meanwhile is lost
      if (this.readied) for (const resync of [...this.resyncs]) resync();
      this.readied = true;
    });
    for (const client of [this.pub, this.sub])
      client.on('error', (err: Error) => this.log?.warn({ err }, 'chat fan-out: Redis connection error'));
  }

  async connect(log: FastifyBaseLogger): Promise<void> {
    this.log = log;
    await Promise.all([this.pub.connect(), this.sub.connect()]);
    await this.sub.subscribe(this.stopChannel);
  }

  async close(): Promise<void> {
    await Promise.all([this.pub, this.sub].map((c) => c.quit().catch(() => c.disconnect())));
  }

  /** After the line is stored: followers on other replicas read it from here. */
  publish(key: RunKey, message: RunMessage): void {
    this.pub
      .publish(this.runChannel(key), JSON.stringify(message))
      .catch((err) => this.log?.warn({ err, runId: key.runId }, 'chat fan-out: publish failed'));
  }

  /** Listens to a run's channel; resolves once subscribed. Returns how to stop listening. */
  async subscribe(key: RunKey, listener: (message: RunMessage) => void): Promise<() => void> {
    const channel = this.runChannel(key);
    let entry = this.channels.get(channel);
    if (!entry) {
      entry = { listeners: new Set(), subscribed: this.sub.subscribe(channel).then(() => undefined) };
      this.channels.set(channel, entry);
    }
    entry.listeners.add(listener);
    const current = entry;
    const leave = () => {
      if (!current.listeners.delete(listener) || current.listeners.size > 0) return;
      if (this.channels.get(channel) === current) this.channels.delete(channel);
      this.sub.unsubscribe(channel).catch(() => undefined);
    };
    try {
      // a second listener waits for the same SUBSCRIBE: nothing published after it returns is missed
      await entry.subscribed;
    } catch (error) {
      leave();
      throw error;
    }
    return leave;
  }

  /** Asks every replica to stop the run (the one running it does). */
  async requestStop(key: RunKey): Promise<void> {
    await this.pub.publish(this.stopChannel, JSON.stringify(key));
  }

  onStop(handler: (key: RunKey) => void): void {
    this.stopHandler = handler;
  }

  /** Called after a lost connection came back. Returns how to stop being called. */
  onResync(handler: () => void): () => void {
    this.resyncs.add(handler);
    return () => this.resyncs.delete(handler);
  }

  private receive(channel: string, text: string): void {
    try {
      if (channel === this.stopChannel) {
        const key = JSON.parse(text) as RunKey;
        if (typeof key.threadId === 'string' && typeof key.runId === 'number') this.stopHandler?.(key);
        return;
      }
      const message = JSON.parse(text) as RunMessage;
      for (const listener of [...(this.channels.get(channel)?.listeners ?? [])]) listener(message);
    } catch (err) {
      this.log?.warn({ err, channel }, 'chat fan-out: unreadable message');
    }
  }
}
