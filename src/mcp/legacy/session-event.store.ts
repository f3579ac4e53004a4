import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/** Events one session keeps for a client that reconnects with Last-Event-ID. */
const MAX_EVENTS = 256;

interface StoredEvent {
  id: EventId;
  streamId: StreamId;
  message: JSONRPCMessage;
}

/**
 * The recent SSE events of one legacy session, so a client whose stream broke resumes it
 * (`Last-Event-ID`) without losing a response. With a store the SDK also opens every stream
 * with a priming event (an id and the `retry` delay) and closes polling streams cleanly
 * (SEP-1699). Bounded: the oldest events go first; a client that comes back later than that
 * resumes nothing (the SDK answers as for an unknown id). Lives and dies with the session,
 * which is in this replica's memory anyway.
 */
export class SessionEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private next = 0;

  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    return Promise.resolve(this.store(streamId, message));
  }

  /**
   * A priming event's id on `streamId` (stored empty, like the SDK's own), for a stream the SDK
   * opens without one (the session's GET stream): a client that reconnects with it gets what
   * the stream carried after.
   */
  primingId(streamId: StreamId): EventId {
    return this.store(streamId, {} as JSONRPCMessage);
  }

  private store(streamId: StreamId, message: JSONRPCMessage): EventId {
    const id = `${streamId}:${++this.next}`;
    this.events.push({ id, streamId, message });
    if (this.events.length > MAX_EVENTS) this.events.shift();
    return id;
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.events.find((event) => event.id === eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const index = this.events.findIndex((event) => event.id === lastEventId);
    if (index < 0) throw new Error('the event is no longer kept');
    const { streamId } = this.events[index];
    for (const event of this.events.slice(index + 1)) {
      // Priming events are stored empty: nothing to send again.
      if (event.streamId === streamId && Object.keys(event.message).length > 0) {
        await send(event.id, event.message);
      }
    }
    return streamId;
  }
}
