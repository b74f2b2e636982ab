public import Foundation
import Synchronization

/// The source of "now" for a store.
///
/// Every date the engine computes (purchase dates, revocation dates, renewals) is read from a
/// `StoreClock`, never from `Date()`, so tests and scenarios can travel in time.
public protocol StoreClock: Sendable {
    /// The current date on this clock.
    func now() -> Date
}

/// Something that has work due at certain dates, such as subscription renewals.
///
/// A ``VirtualClock`` asks its sources for their next due date while it advances and fires each one
/// in date order, so that moving the clock a month forward renews a monthly subscription exactly once
/// per period instead of jumping over the renewals.
public protocol ScheduledEventSource: AnyObject, Sendable {
    /// The earliest date at which this source has something to do, if any.
    func nextEventDate() async -> Date?
    /// Performs everything that is due at or before `date`.
    func fireEvents(dueAt date: Date) async
}

/// The wall clock. `Date()` appears here and nowhere else in the engine.
public struct SystemClock: StoreClock {
    /// Creates a clock that reads the system time.
    public init() {}

    /// The system's current date.
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to, for tests and for time travel.
///
/// `advance(by:)` and `advance(to:)` walk forward through every due event of the registered
/// ``ScheduledEventSource``s in date order and return once the store has settled. Time never goes back.
public final class VirtualClock: StoreClock {
    private struct State {
        var now: Date
        var sources: [ObjectIdentifier: WeakSource] = [:]
    }

    private struct WeakSource {
        weak var source: (any ScheduledEventSource)?
    }

    private let state: Mutex<State>

    /// Creates a clock stopped at `start`.
    public init(start: Date) {
        state = Mutex(State(now: start))
    }

    /// The clock's current date.
    public func now() -> Date {
        state.withLock { $0.now }
    }

    /// Registers a source of scheduled events. The clock holds it weakly.
    public func register(_ source: any ScheduledEventSource) {
        state.withLock { $0.sources[ObjectIdentifier(source)] = WeakSource(source: source) }
    }

    /// Moves the clock forward by `interval` seconds, firing every event due on the way.
    ///
    /// - Throws: ``StoreError`` with code `clockCannotGoBack` when `interval` is negative.
    public func advance(by interval: TimeInterval) async throws(StoreError) {
        try await advance(to: now().addingTimeInterval(interval))
    }

    /// Moves the clock forward to `target`, firing every event due on the way in date order.
    ///
    /// - Throws: ``StoreError`` with code `clockCannotGoBack` when `target` is before ``now()``.
    public func advance(to target: Date) async throws(StoreError) {
        let start = now()
        guard target >= start else {
            throw StoreError.clockCannotGoBack("The virtual clock is at \(start) and cannot go back to \(target). Create a new tenant to start over at an earlier date.")
        }
        while true {
            let sources = state.withLock { state in
                state.sources = state.sources.filter { $0.value.source != nil }
                return state.sources.values.compactMap(\.source)
            }
            var earliest: (date: Date, source: any ScheduledEventSource)?
            for source in sources {
                if let date = await source.nextEventDate(), date <= target, date < (earliest?.date ?? .distantFuture) {
                    earliest = (date, source)
                }
            }
            guard let (date, source) = earliest else { break }
            state.withLock { $0.now = max($0.now, date) }
            await source.fireEvents(dueAt: date)
        }
        state.withLock { $0.now = max($0.now, target) }
    }
}
