import Foundation

/// Counts the work a payment queue has started and not finished — jobs of its worker, download steps, callbacks
/// on their way to the callback queue — and wakes whoever waits for the count to reach zero.
///
/// Every unit that starts another one starts it before it ends itself, so the count only reaches zero when
/// nothing is left to do.
package final class PendingWork: Sendable {
    private struct State {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Notes that a unit of work started.
    package func begin() {
        state.withLock { $0.count += 1 }
    }

    /// Notes that a unit of work ended; wakes the waiters when it was the last one.
    package func end() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            precondition(state.count >= 0, "PendingWork ended more units than began")
            guard state.count == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no work is pending.
    package func idle() async {
        await withCheckedContinuation { continuation in
            let idleNow = state.withLock { state -> Bool in
                guard state.count > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if idleNow { continuation.resume() }
        }
    }
}
