import Synchronization

/// One timer for many stores: wakes each store when its next scheduled event — a renewal, an expiry, an external
/// purchase token notification — falls due on a clock that runs by itself.
///
/// A store schedules its wake here after every operation that moves its next event; a store on a ``VirtualClock`` never
/// does, since that clock drives its stores itself. However many stores wait, one task sleeps, until the earliest
/// wake: a server holding thousands of tenants keeps no timer per tenant. Every store shares ``shared`` unless it is
/// given another (a test that controls when wakes fire gives one over a clock of its own).
///
/// A store is held weakly: one nobody else keeps is released, and its wake forgotten. ``StoreEngine/stopWaking()``
/// takes a store out for good, as a server does on shutdown.
public final class StoreWakeups: Sendable {
    /// The wakes of every store that is given no other: one timer for the process.
    public static let shared = StoreWakeups()

    /// A store's wake: when, on the timer's clock, and the store.
    private struct Wake {
        var deadline: Duration
        weak var store: StoreEngine?
    }

    private struct State {
        /// The next wake of each store that waits for one.
        var wakes: [ObjectIdentifier: Wake] = [:]
        /// The one sleeping task, and the deadline it sleeps until: the earliest of ``wakes``.
        var timer: (deadline: Duration, task: Task<Void, Never>)?
    }

    private let state = Mutex(State())
    /// The timer's clock as time since the wakes were created.
    private let elapsed: @Sendable () -> Duration
    /// Sleeps until a time since the wakes were created.
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Creates wakes that fire on the system's continuous clock.
    public convenience init() {
        self.init(clock: ContinuousClock())
    }

    /// Creates wakes that fire on `clock`: a test gives a clock it advances itself.
    public init<TimerClock: Clock<Duration>>(clock: TimerClock) {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleep = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }

    /// How many stores wait for a wake.
    public var waitingStores: Int {
        state.withLock { $0.wakes.values.count { $0.store != nil } }
    }

    /// Wakes `store` (``StoreEngine/wake()``) once `delay` seconds have passed, in place of the wake it had.
    func schedule(_ store: StoreEngine, after delay: Double) {
        let deadline = elapsed() + .seconds(max(0, delay))
        state.withLock { state in
            state.wakes[ObjectIdentifier(store)] = Wake(deadline: deadline, store: store)
            if let timer = state.timer, timer.deadline <= deadline { return }
            state.timer?.task.cancel()
            state.timer = (deadline, startTimer(until: deadline))
        }
    }

    /// Forgets the wake of the store with the identifier, if it has one.
    func cancel(_ store: ObjectIdentifier) {
        state.withLock { _ = $0.wakes.removeValue(forKey: store) }
    }

    private func startTimer(until deadline: Duration) -> Task<Void, Never> {
        let sleep = sleep
        return Task { [weak self] in
            do {
                try await sleep(deadline)
            } catch {
                return
            }
            self?.fire(timerDeadline: deadline)
        }
    }

    /// Wakes every store whose wake is due, and sets the timer for the next one. A timer replaced meanwhile by one
    /// for an earlier wake does nothing.
    private func fire(timerDeadline: Duration) {
        let due: [StoreEngine] = state.withLock { state in
            guard state.timer?.deadline == timerDeadline else { return [] }
            let now = elapsed()
            var due: [StoreEngine] = []
            for (id, wake) in state.wakes where wake.deadline <= now || wake.store == nil {
                state.wakes[id] = nil
                if let store = wake.store { due.append(store) }
            }
            if let next = state.wakes.values.map(\.deadline).min() {
                state.timer = (next, startTimer(until: next))
            } else {
                state.timer = nil
            }
            return due
        }
        for store in due {
            Task { await store.wake() }
        }
    }
}
