extension StoreEngine {
    /// Where the tenant's App Store Server Notifications go, as stored by ``setNotificationDestinations(_:)`` through
    /// any engine on the storage; `nil` when none were stored. One read of the latest committed state, and nothing
    /// else: a notification sender asks before each pass, so this read does not first catch up on due renewals as
    /// other queries do.
    public func notificationDestinations() async throws(StoreError) -> NotificationDestinations? {
        try await storageCall { [tenantID] storage in try await storage.read(tenant: tenantID) { try $0.notificationDestinations() } }
    }

    /// Stores where the tenant's App Store Server Notifications go: the senders of every server on the storage send
    /// there from their next pass, and a restart keeps them. `nil` forgets them.
    ///
    /// - Throws: ``StoreError/storageFailure`` when they cannot be stored; nothing changes then.
    public func setNotificationDestinations(_ destinations: NotificationDestinations?) async throws(StoreError) {
        try await perform { try $0.storage.write(.saveNotificationDestinations(destinations)) }
        announceOutboxWork()
    }
}
