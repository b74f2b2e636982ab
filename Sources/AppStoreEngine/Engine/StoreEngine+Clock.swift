public import Foundation

extension StoreEngine {
    /// This tenant's stored clock state: how far its clock runs ahead of wall time, and the time rate chosen for it.
    public func clockState() async throws(StoreError) -> StoreClockState {
        try await read { try $0.clockState() }
    }

    /// Moves the store's clock forward by `interval` seconds and applies every renewal and expiry due on the way.
    ///
    /// On a ``TenantClock`` (every store `StoreFactory` opens without a ``VirtualClock``) the new offset is stored
    /// in one storage transaction, so every process that opens the tenant afterwards sees the moved clock; then the
    /// store catches up, renewing each subscription once per period that ended, in order. Two processes advancing
    /// the same tenant by a month each move it two months. On a ``VirtualClock`` this is the clock's own
    /// ``VirtualClock/advance(by:)``, which fires each due event at its date.
    ///
    /// - Parameter interval: How far to move, in seconds; zero only catches up.
    /// - Throws: ``StoreError/clockCannotGoBack`` for a negative interval, ``StoreError/clockCannotMove`` for a
    ///   store on a clock that cannot move (a bare ``SystemClock``); nothing changes then.
    public func advanceClock(by interval: TimeInterval) async throws(StoreError) {
        guard interval >= 0 else {
            throw StoreError.clockCannotGoBack("Cannot move the clock of store \"\(tenantID)\" back by \(-interval) seconds: a store's clock only moves forward. Advance by a positive duration, or use another tenant to start over at wall time.")
        }
        try await moveClock(.by(interval))
    }

    /// Moves the store's clock forward to `date` and applies every renewal and expiry due on the way.
    ///
    /// See ``advanceClock(by:)`` for what is stored and applied.
    ///
    /// - Parameter date: Where to move the clock; the clock's current date only catches up.
    /// - Throws: ``StoreError/clockCannotGoBack`` when `date` is before the clock's now, ``StoreError/clockCannotMove``
    ///   for a store on a clock that cannot move; nothing changes then.
    public func advanceClock(to date: Date) async throws(StoreError) {
        try await moveClock(.to(date))
    }

    /// Chooses the time rate of this tenant, replacing the configuration's `_timeRate` now and in every process that
    /// opens the tenant later. `nil` removes the choice: this engine keeps its current rate, and stores opened later
    /// use their configuration's again.
    ///
    /// The rate shortens the periods that start from now on; periods already running end when they were due to.
    ///
    /// - Parameter rate: The rate, or `nil` to go back to the configuration's.
    public func setTimeRate(_ rate: TimeRate?) async throws(StoreError) {
        try await perform { operation in
            var state = try operation.storage.clockState()
            state.timeRate = rate
            try operation.storage.write(.saveClockState(state))
        }
        if let rate { settings.timeRate = rate }
        publish(.settingsChanged)
    }

    /// How far to move a clock.
    private enum ClockMove: Sendable {
        case by(TimeInterval)
        case to(Date)
    }

    private func moveClock(_ move: ClockMove) async throws(StoreError) {
        try await moveClockAndCatchUp(move)
        publish(.clockMoved(clock.now()))
    }

    private func moveClockAndCatchUp(_ move: ClockMove) async throws(StoreError) {
        switch clock {
        case let virtual as VirtualClock:
            switch move {
            case .by(let interval): try await virtual.advance(by: interval)
            case .to(let date): try await virtual.advance(to: date)
            }
        case let tenantClock as TenantClock:
            let tenantID = tenantID
            let offset = try await perform { operation in
                // `perform` has already moved the clock up to the offset stored by now, in this transaction.
                var state = try operation.storage.clockState()
                switch move {
                case .by(let interval):
                    state.offset = tenantClock.offset + interval
                case .to(let date):
                    guard date >= operation.now else {
                        throw StoreError.clockCannotGoBack("The clock of store \"\(tenantID)\" is at \(operation.now.formatted(.iso8601)) and cannot go back to \(date.formatted(.iso8601)): a store's clock only moves forward. Choose a later date, or use another tenant to start over at wall time.")
                    }
                    state.offset = max(tenantClock.offset, date.timeIntervalSince(tenantClock.baseNow))
                }
                try operation.storage.write(.saveClockState(state))
                return state.offset
            }
            tenantClock.moveForward(toOffset: offset)
            try await applyDueEvents()
        default:
            throw StoreError.clockCannotMove("Store \"\(tenantID)\" runs on \(type(of: clock)), which cannot be moved. Open it with StoreFactory (a TenantClock) or give it a VirtualClock to travel in time.")
        }
    }

    /// The date a store operation runs at: a ``TenantClock`` first picks up an offset stored by another process.
    static func currentDate(on clock: any StoreClock, in reader: any StorageReader) throws -> Date {
        if let clock = clock as? TenantClock {
            clock.moveForward(toOffset: try reader.clockState().offset)
        }
        return clock.now()
    }
}
