#if canImport(Glibc)
import Glibc
#endif
import AppStoreEngine
import Synchronization

/// Gives the memory deleted tenants freed back to the system, once deletions pause.
///
/// glibc's allocator keeps the memory a program frees for its next allocations rather than returning it: after a test
/// fleet deleted 10,000 tenants, a server stayed at 1.3 GB resident although a fifth of that was in use. Only
/// `malloc_trim` hands the free pages of its heaps back, and it walks every heap under their locks, so the directory
/// asks for it through ``memoryFreed()``, and it runs once, a second after the last deletion of a burst, on a
/// background task, after the storages named in the calls reclaimed what the deleted tenants' data took (SQLite's page
/// caches held their pages, and its file their free pages). Elsewhere (another C library, or a static build whose C
/// library has no `malloc_trim`) only the storages reclaim: the other allocators decide on their own.
final class FreedMemory: Sendable {
    /// The process's: its allocator's heaps are the process's.
    static let shared = FreedMemory()

    /// How long deletions must pause before the memory is returned.
    static let pause = Duration.seconds(1)

    /// The C library's `malloc_trim`, looked up at run time: glibc has it, other C libraries do not.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()

    private struct State {
        /// When the memory is to be returned: ``pause`` after the last ``memoryFreed()``.
        var due: ContinuousClock.Instant?
        /// Whether a task waits for ``due``.
        var waiting = false
        /// The storages to reclaim their freed space first, by identity.
        var storages: [ObjectIdentifier: any Storage] = [:]
    }
    private let state = Mutex(State())

    /// Says that memory was just freed, by deleting what `storage` held if given: once nothing more was freed for
    /// ``pause``, the storage reclaims its freed space and the memory goes back to the system.
    func memoryFreed(in storage: (any Storage)? = nil) {
        let startsTask = state.withLock { state in
            state.due = .now + Self.pause
            if let storage { state.storages[ObjectIdentifier(storage as AnyObject)] = storage }
            defer { state.waiting = true }
            return !state.waiting
        }
        guard startsTask else { return }
        Task.detached(priority: .background) { [self] in
            while true {
                let (due, storages) = state.withLock { state -> (ContinuousClock.Instant?, [any Storage]) in
                    guard let due = state.due, due > .now else {
                        state.due = nil
                        state.waiting = false
                        defer { state.storages = [:] }
                        return (nil, Array(state.storages.values))
                    }
                    return (due, [])
                }
                guard let due else {
                    for storage in storages { await storage.reclaimFreedSpace() }
                    break
                }
                try? await Task.sleep(until: due)
            }
            _ = Self.trim?(0)
        }
    }
}
