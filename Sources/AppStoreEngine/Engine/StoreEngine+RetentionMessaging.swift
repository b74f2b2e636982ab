extension StoreEngine {
    /// What the Retention Messaging API keeps for an app of the tenant, as stored through any engine on the storage;
    /// empty when nothing was. One read of the latest committed state.
    ///
    /// - Throws: ``StoreError/storageFailure`` when the storage cannot be read.
    public func retentionMessaging(bundleID: String) async throws(StoreError) -> RetentionMessagingContent {
        try await read { try $0.retentionMessaging(bundleID: bundleID) } ?? RetentionMessagingContent()
    }

    /// Changes what the Retention Messaging API keeps for an app of the tenant, in one storage transaction: `change`
    /// sees the latest content, stored through any engine on the storage, and what it leaves is stored when it differs,
    /// for every server on the storage and after a restart. `change` decides alone and says how in its result (a
    /// refusal leaves the content as it was); it must not wait for anything.
    ///
    /// - Throws: ``StoreError/storageFailure`` when the content cannot be read or stored; nothing changes then.
    public func updateRetentionMessaging<Result: Sendable>(
        bundleID: String, _ change: @escaping @Sendable (inout RetentionMessagingContent) -> Result
    ) async throws(StoreError) -> Result {
        try await perform { operation in
            let stored = try operation.storage.retentionMessaging(bundleID: bundleID)
            var content = stored ?? RetentionMessagingContent()
            let result = change(&content)
            if content != (stored ?? RetentionMessagingContent()) {
                try operation.storage.write(.saveRetentionMessaging(bundleID: bundleID, content.isEmpty ? nil : content))
            }
            return result
        }
    }
}
