import AppStoreEngine
import Foundation
import Synchronization
import Testing

/// Stores on clocks that run by themselves renew when their subscriptions fall due, woken by one timer for all of
/// them (`StoreWakeups`), and a store that stopped waking asks for no more wakes.
@Suite("Store wakeups", .timeLimit(.minutes(1)))
struct StoreWakeupsTests {
    /// Stores on `time`'s dates, woken by a timer on `time`.
    struct Fleet {
        let time = ManualTime()
        let wakeups: StoreWakeups

        init() {
            wakeups = StoreWakeups(clock: time)
        }

        func store() -> StoreEngine {
            StoreEngine(
                tenantID: UUID().uuidString, catalog: testCatalog, storage: InMemoryStorage(),
                clock: ManualTime.Dates(time: time, start: testStart), signer: .ephemeral, wakeups: wakeups
            )
        }
    }

    /// Waits until the store publishes a transaction of `productID`: a renewal the wake applied, since nothing else
    /// asks the store anything meanwhile (any query would apply the renewal itself).
    static func waitForRenewal(of productID: String, in events: AsyncStream<StoreEvent>) async {
        for await event in events {
            if case .transactionUpdated(let transaction) = event, transaction.productID == productID { return }
        }
    }

    @Test("One timer wakes each store when its own subscription falls due, and only then")
    func oneTimerWakesEachStoreAtItsRenewal() async throws {
        let fleet = Fleet()
        let early = fleet.store(), late = fleet.store()
        _ = try await early.buy("monthly")
        fleet.time.advance(by: .days(10))
        _ = try await late.buy("monthly")
        #expect(fleet.wakeups.waitingStores == 2)

        // Past the first store's renewal (one month after 2026-01-15), not the second's.
        let earlyEvents = await early.events()
        fleet.time.advance(by: .days(21) + .seconds(60))
        await Self.waitForRenewal(of: "monthly", in: earlyEvents)
        #expect(try await late.transactions().count == 1, "the second store renewed before its subscription fell due")

        let lateEvents = await late.events()
        fleet.time.advance(by: .days(10))
        await Self.waitForRenewal(of: "monthly", in: lateEvents)
        #expect(fleet.wakeups.waitingStores == 2, "each store waits for its next renewal")
    }

    @Test("A store that stopped waking asks for no wake, yet its operations still apply what fell due")
    func stoppedStoreAsksForNoWake() async throws {
        let fleet = Fleet()
        let store = fleet.store()
        _ = try await store.buy("monthly")
        #expect(fleet.wakeups.waitingStores == 1)

        await store.stopWaking()
        #expect(fleet.wakeups.waitingStores == 0)
        fleet.time.advance(by: .days(40))
        _ = try await store.buy("coins")
        #expect(fleet.wakeups.waitingStores == 0)
        #expect(try await store.transactions().count { $0.productID == "monthly" } == 2, "the purchase applied the renewal due")
    }

    @Test("A store nobody keeps is released, and its wake forgotten")
    func releasedStoreIsForgotten() async throws {
        let fleet = Fleet()
        do {
            let store = fleet.store()
            _ = try await store.buy("monthly")
            #expect(fleet.wakeups.waitingStores == 1)
        }
        #expect(fleet.wakeups.waitingStores == 0)
    }
}

/// A clock the test moves by hand: the timer's `Clock`, and through ``Dates`` the stores' clock, so both agree.
final class ManualTime: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// The stores' clock: `start` plus the time the test has moved.
    struct Dates: StoreClock {
        let time: ManualTime
        let start: Date

        func now() -> Date {
            start.addingTimeInterval(TimeInterval(time.now.offset.components.seconds))
        }
    }

    private struct Sleeper {
        let id: UUID
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Duration.zero
        var sleepers: [Sleeper] = []
        /// Sleeps cancelled before they started waiting.
        var cancelled: Set<UUID> = []
    }

    private let state = Mutex(State())

    var now: Instant { Instant(offset: state.withLock { $0.now }) }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Bool, CancellationError> = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline.offset <= state.now { return .success(true) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline.offset, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time forward and ends every sleep due by then.
    func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

extension Duration {
    static func days(_ count: Int64) -> Duration { .seconds(count * 86_400) }
}
