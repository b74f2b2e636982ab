extension StoreEngine {
    /// Where the tenant's App Store Server Notifications go, as stored by ``setNotificationDestinations(_:)`` through
    /// any engine on the storage; `nil` when none were stored. A notification sender asks before each pass, after
    /// each operation that records a notification, so this does not first catch up on due renewals as other
    /// queries do, and reads the storage only when the answer may have changed.
    ///
    /// On a storage that signals other handles' commits and stamps the destinations (PostgreSQL), while the engine
    /// follows those commits, the answer is kept until a signal arrives, this engine changes the destinations, or
    /// one of its transactions finds another stamp: another server's change (or deletion) whose signal is still on
    /// its way, so the notifications that transaction records go to the new destinations. Otherwise each call reads the latest
    /// committed state (on SQLite another process, such as `storekit notifications url set`, may have changed it).
    public func notificationDestinations() async throws(StoreError) -> NotificationDestinations? {
        if hearsChangesElsewhere, let known = knownDestinations, known.stamp >= latestDestinationsStamp { return known.destinations }
        let generation = destinationsGeneration, following = hearsChangesElsewhere
        let (stamp, destinations) = try await storageCall { [tenantID] storage in
            // The stamp first: a change between the two reads leaves an old stamp, which the next transaction outgrows.
            try await storage.read(tenant: tenantID) { reader in
                (following ? try reader.notificationDestinationsStamp() : nil, try reader.notificationDestinations())
            }
        }
        guard let stamp else { return destinations }
        latestDestinationsStamp = max(latestDestinationsStamp, stamp)
        // A signal or a change of this engine's during the read may have overtaken it.
        if hearsChangesElsewhere, generation == destinationsGeneration { knownDestinations = (stamp, destinations) }
        return destinations
    }

    /// Counts the changes of the tenant's notification destinations this engine knows of: those it wrote, and, on a
    /// storage that signals other handles' commits, those its signals and transactions revealed. A sender that found
    /// no destination need not read them again while this stays the same, but for changes only another process knows.
    public var knownDestinationChanges: Int { destinationsGeneration }

    /// Forgets the destinations ``notificationDestinations()`` kept, and tells the senders: they may have changed.
    func forgetDestinations() {
        knownDestinations = nil
        destinationsGeneration += 1
        announceDestinationChange()
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
