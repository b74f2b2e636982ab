import Dispatch
import Foundation

/// Runs store work for StoreKit's synchronous API (`SKPaymentQueue.canMakePayments()`, the setters and
/// methods of `SKTestSession`) and waits for it.
///
/// The work runs on a dedicated executor backed by its own dispatch queue, never on the cooperative pool, so
/// waiting from a test on the pool or from the main queue cannot starve the work it waits for. Do not call
/// it from a dispatch queue the work itself needs.
package enum BlockingBridge {
    /// Runs `operation` to completion and returns its result, blocking the calling thread meanwhile.
    package static func wait<T: Sendable, Failure: Error>(
        _ operation: @escaping @Sendable () async throws(Failure) -> T
    ) throws(Failure) -> T {
        let outcome = Locked<Result<T, Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            let result: Result<T, Failure>
            do throws(Failure) {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.current!.get()
    }

    private static let executor = DispatchTaskExecutor(label: "OpenStoreKit.blocking-bridge")
}

/// A task executor that runs jobs on a concurrent dispatch queue (threads outside the cooperative pool).
final class DispatchTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
