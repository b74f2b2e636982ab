public import Foundation

/// What a tenant stores about its clock: how far it was moved ahead of wall time, and the time rate chosen for it.
///
/// A store opened from a data directory runs on a ``TenantClock``: the system time plus ``offset``. Moving the
/// clock forward (``StoreEngine/advanceClock(by:)``, `storekit clock advance`) stores a larger offset, so every
/// process that opens the tenant later sees the same "now". The offset never shrinks: a store's clock only moves
/// forward.
public struct StoreClockState: Sendable, Hashable, Codable {
    /// Seconds the tenant's clock runs ahead of wall time; never negative.
    public var offset: TimeInterval
    /// The time rate that replaces the configuration's `_timeRate` for this tenant, if one was chosen.
    public var timeRate: TimeRate?

    /// Creates a clock state; the default is wall time with the configuration's time rate.
    public init(offset: TimeInterval = 0, timeRate: TimeRate? = nil) {
        self.offset = offset
        self.timeRate = timeRate
    }
}
