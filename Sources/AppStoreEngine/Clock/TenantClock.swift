public import Foundation
import Synchronization

/// A tenant's persisted clock: wall time shifted forward by the offset the tenant stores.
///
/// `StoreFactory` gives every store it opens one of these (unless a ``VirtualClock`` is asked for), loaded from the
/// tenant's ``StoreClockState``. It runs at the speed of its base clock, and jumps forward only through
/// ``StoreEngine/advanceClock(by:)`` and ``StoreEngine/advanceClock(to:)``, which store the new offset and then apply
/// every renewal and expiry that fell due on the way. Each store operation also picks up an offset another process
/// stored meanwhile, so a running server and the `storekit` command agree on the time.
public final class TenantClock: StoreClock {
    private let base: any StoreClock
    private let storedOffset: Mutex<TimeInterval>

    /// Creates a clock that reads `base` (the system clock unless a test gives another) plus `offset` seconds.
    ///
    /// - Parameters:
    ///   - offset: How many seconds the clock runs ahead of `base`; a negative offset counts as zero.
    ///   - base: The clock the offset applies to.
    public init(offset: TimeInterval = 0, base: any StoreClock = SystemClock()) {
        self.base = base
        storedOffset = Mutex(max(0, offset))
    }

    /// The current date: the base clock's plus ``offset``.
    public func now() -> Date {
        let offset = storedOffset.withLock { $0 }
        return base.now().addingTimeInterval(offset)
    }

    /// How many seconds this clock runs ahead of its base clock.
    public var offset: TimeInterval {
        storedOffset.withLock { $0 }
    }

    /// The base clock's current date.
    var baseNow: Date { base.now() }

    /// Moves the offset up to `offset`; a smaller one changes nothing, so the clock never goes back.
    func moveForward(toOffset offset: TimeInterval) {
        storedOffset.withLock { $0 = max($0, offset) }
    }
}
