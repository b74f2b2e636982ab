/// A stream of what `produce` yields, produced in a task of its own that starts now; the stream ends when `produce`
/// returns, and cancelling the iteration cancels the task. The StoreKit 2 sequences (`Transaction.Transactions`,
/// `Storefront.Storefronts`, …) iterate one of these each.
func producedStream<Element: Sendable>(
    _ produce: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void
) -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
    let task = Task {
        await produce(continuation)
        continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
}
