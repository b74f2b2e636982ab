extension StoreEngine {
    /// The `appTransactionId` of an account's copy of an app: what its `AppTransaction`, its signed transactions and
    /// its subscriptions' renewal info carry, and what the App Store Server API accepts in place of a transaction
    /// identifier.
    ///
    /// It is derived from the tenant, the account and the app, so it is the same in every process and every storage,
    /// and never changes for the account and app.
    ///
    /// - Parameters:
    ///   - accountID: The customer's account.
    ///   - bundleID: The app.
    public nonisolated func appTransactionID(accountID: String, bundleID: String) -> String {
        Self.appTransactionID(tenant: tenantID, accountID: accountID, bundleID: bundleID)
    }

    /// The account whose copy of the app has the `appTransactionId`: how the App Store Server API endpoints that take
    /// "any transactionId, originalTransactionId or appTransactionId" find the customer an app transaction names.
    ///
    /// The identifier is derived, not stored (see ``appTransactionID(accountID:bundleID:)``), so it is found by
    /// deriving it again for the tenant's saved accounts (every account that bought is saved on its first purchase)
    /// and the default account, and then, for stores written before accounts were saved, for every account with a
    /// transaction in the app. Only an identifier of the shape the store hands out (19 digits, starting with 7) is
    /// looked for; transaction identifiers never have it.
    ///
    /// - Parameters:
    ///   - appTransactionID: The `appTransactionId`, as a backend sends it.
    ///   - bundleID: The app the identifier is for (at the App Store Server API, the token's `bid`).
    /// - Returns: the account, or `nil` when no account of this store has that app transaction for the app.
    /// - Throws: ``StoreError`` `storageFailure` when storage cannot be read.
    public func account(appTransactionID: String, bundleID: String) async throws(StoreError) -> String? {
        guard Self.hasAppTransactionIDShape(appTransactionID) else { return nil }
        let tenantID = tenantID
        return try await read { storage in
            let matches = { (accountID: String) in
                Self.appTransactionID(tenant: tenantID, accountID: accountID, bundleID: bundleID) == appTransactionID
            }
            let saved = try storage.accounts().map(\.id)
            if let found = (saved + [StoreDefaults.accountID]).first(where: matches) { return found }
            let buyers = Set(try storage.transactions(matching: TransactionQuery(bundleID: bundleID)).map(\.accountID))
            return buyers.sorted().first(where: matches)
        }
    }

    /// Whether `text` could be an `appTransactionId` this store made: 19 decimal digits, the first a 7 (see
    /// ``appTransactionID(tenant:accountID:bundleID:)``).
    nonisolated static func hasAppTransactionIDShape(_ text: String) -> Bool {
        text.utf8.count == 19 && text.utf8.first == UInt8(ascii: "7") && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}
