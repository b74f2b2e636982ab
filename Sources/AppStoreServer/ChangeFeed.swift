import AppStoreDeviceProtocol
import AppStoreEngine
import Foundation

/// Numbers a store's changes and hands them to devices that poll for them: the server side of the device
/// protocol's `device/changes` long poll.
///
/// It keeps the most recent changes only; a device that fell further behind gets one ``ChangeBatch/Change/other``,
/// which makes it look at everything, so nothing is lost, only summarized.
actor ChangeFeed {
    /// The server run the sequence numbers belong to.
    let epoch = UUID()
    private let retained: Int
    private var sequence: UInt64 = 0
    private var recent: [(sequence: UInt64, change: ChangeBatch.Change)] = []
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    private var listener: Task<Void, Never>?

    private let engine: StoreEngine
    private var isFollowing = false
    private var isClosing = false

    /// A feed of `engine`'s events, remembering the last `retained` of them. It starts numbering them at the
    /// first poll: before any device asked, there is nobody to tell.
    init(following engine: StoreEngine, retained: Int = 512) {
        self.engine = engine
        self.retained = retained
    }

    private func follow() async {
        guard !isFollowing else { return }
        isFollowing = true
        let events = await engine.events()
        listener = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                if let change = Self.change(for: event) { await self.record(change) }
            }
        }
    }

    /// What devices hear of an event; `nil` for what no device holds.
    private static func change(for event: StoreEvent) -> ChangeBatch.Change? {
        switch event {
        case .transactionUpdated(let record): .transactions([record])
        case .subscriptionsChanged(let subscriptions): .subscriptions(subscriptions)
        case .transactionsRevoked, .transactionsDeleted, .transactionsCleared, .storefrontChanged, .purchaseIntentAdded,
             .priceIncreaseConsentRequested, .changedElsewhere:
            .other
        // Renewals the clock brought were announced on their own.
        case .notificationsChanged, .clockMoved, .settingsChanged, .refundRequestChanged: nil
        }
    }

    private func record(_ change: ChangeBatch.Change) {
        sequence += 1
        recent.append((sequence, change))
        if recent.count > retained { recent.removeFirst(recent.count - retained) }
        wakeAll()
    }

    /// The changes after `after` in the run `epoch`, waiting up to `wait` for one when there are none yet.
    ///
    /// Without `after`, or for another run's epoch, it answers at once: with no changes and the current sequence
    /// number for a first poll, and with ``ChangeBatch/Change/other`` for a client that knew another run.
    func changes(epoch clientEpoch: UUID?, after: UInt64?, wait: Duration) async -> ChangeBatch {
        await follow()
        guard let after else { return ChangeBatch(epoch: epoch, sequence: sequence, changes: []) }
        guard clientEpoch == epoch, after <= sequence else { return ChangeBatch(epoch: epoch, sequence: sequence, changes: [.other]) }
        if after == sequence {
            await waitForChange(atMost: wait)
        }
        let oldestKept = recent.first?.sequence ?? sequence + 1
        if after + 1 < oldestKept, after < sequence {
            return ChangeBatch(epoch: epoch, sequence: sequence, changes: [.other])
        }
        return ChangeBatch(epoch: epoch, sequence: sequence, changes: recent.filter { $0.sequence > after }.map(\.change))
    }

    /// Whether a device's poll waits for a change now: its tenant is in use.
    var hasWaitingPolls: Bool { !waiters.isEmpty }

    /// Answers every waiting poll now, and every later one at once: the server is shutting down, and a graceful
    /// shutdown waits for the requests in flight.
    func close() {
        isClosing = true
        wakeAll()
    }

    private func wakeAll() {
        let woken = waiters
        waiters = [:]
        for waiter in woken.values { waiter.resume() }
    }

    /// Returns at the next change, or after `duration`, or when the polling task is cancelled or the feed closes.
    private func waitForChange(atMost duration: Duration) async {
        guard !isClosing else { return }
        let id = UUID()
        let timeout = Task { [weak self] in
            try? await Task.sleep(for: duration)
            await self?.wake(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiters[id] = continuation
            }
        } onCancel: {
            Task { await self.wake(id) }
        }
        timeout.cancel()
    }

    private func wake(_ id: UUID) {
        waiters.removeValue(forKey: id)?.resume()
    }

    deinit {
        listener?.cancel()
    }
}
