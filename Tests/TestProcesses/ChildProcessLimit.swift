import Foundation
import Synchronization
public import Testing

/// Runs at most one test per core at a time among the tests it applies to, the ones that run child processes; the
/// others wait suspended, holding no thread.
///
/// Waiting for a child suspends a test instead of holding a thread of the cooperative pool, so nothing else limits
/// how many such tests Swift Testing starts together: with every command-line test in flight, dozens of processes
/// share the cores and one `storekit` command can take seconds, longer than the tests that also watch the store's
/// real-time clock allow between two commands. A slot held for a whole test keeps the load as it was when each of
/// these tests held a pool thread, while the in-process tests run on the pool's free threads.
///
/// Add it to a suite with ``limitsChildProcesses``. A test holding a slot never waits for another slot, so the
/// slots cannot deadlock.
public struct ChildProcessLimit: SuiteTrait, TestTrait, TestScoping {
    private static let slots = Slots(ProcessInfo.processInfo.activeProcessorCount)

    /// Applies to every test of the suite and of its nested suites.
    public var isRecursive: Bool { true }

    /// Runs `function` once a slot is free, and frees it after.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await Self.slots.acquire()
        defer { Self.slots.release() }
        try await function()
    }
}

extension Trait where Self == ChildProcessLimit {
    /// Runs each test of the suite only when fewer tests that run child processes than the machine has cores are
    /// running; see ``ChildProcessLimit``.
    public static var limitsChildProcesses: Self { ChildProcessLimit() }
}

/// A counting semaphore whose waiters suspend, served first come, first served.
private final class Slots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
