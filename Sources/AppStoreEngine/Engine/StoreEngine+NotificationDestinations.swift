extension StoreEngine {
    /// Where the tenant's App Store Server Notifications go, as stored by ``setNotificationDestinations(_:)`` through
    /// any engine on the storage; `nil` when none were stored. A notification sender asks before each pass, after
    /// each operation that records a notification, so this does not first catch up on due renewals as other
    /// queries do, and reads the storage only when the answer may have changed.
    ///
    /// On a storage that signals other handles' commits (PostgreSQL), while the engine follows them, the answer is
    /// kept until a signal arrives or this engine changes the destinations; otherwise each call reads the latest
    /// committed state (on SQLite another process, such as `storekit notifications url set`, may have changed it).
    public func notificationDestinations() async throws(StoreError) -> NotificationDestinations? {
        if hearsChangesElsewhere, let known = knownDestinations { return known }
        let generation = destinationsGeneration, following = hearsChangesElsewhere
        let destinations = try await storageCall { [tenantID] storage in
            try await storage.read(tenant: tenantID) { try $0.notificationDestinations() }
        }
        // A signal or a change of this engine's during the read may have overtaken it.
        if following, hearsChangesElsewhere, generation == destinationsGeneration { knownDestinations = .some(destinations) }
        return destinations
    }

    /// Forgets the destinations ``notificationDestinations()`` kept: they may have changed.
    func forgetDestinations() {
        knownDestinations = nil
        destinationsGeneration += 1
    }

    /// Stores where the tenant's App Store Server Notifications go: the senders of every server on the storage send
    /// there from their next pass, and a restart keeps them. `nil` forgets them.
    ///
    /// - Throws: ``StoreError/storageFailure`` when they cannot be stored; nothing changes then.
    public func setNotificationDestinations(_ destinations: NotificationDestinations?) async throws(StoreError) {
        // Forgotten whatever happens: a commit whose answer was lost may have stored them all the same.
        defer { forgetDestinations() }
        try await perform { try $0.storage.write(.saveNotificationDestinations(destinations)) }
        announceOutboxWork()
    }
}
