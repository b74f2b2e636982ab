public import AppStoreFormats
public import Foundation

/// Whose app receipt a receipt is, as the store that issued it knows: what `verifyReceipt` needs.
public struct ReceiptHolder: Sendable, Hashable {
    /// The account the receipt belongs to.
    public var accountID: String
    /// The device the receipt was issued to, when the store has seen that device buy, restore or receive a
    /// receipt for the account; `nil` when it cannot tell.
    public var deviceID: UUID?
    /// The receipt's in-app transactions as the store holds them now (a refund since shows here), by identifier.
    public var transactions: [UInt64: TransactionRecord]

    /// Creates a holder.
    public init(accountID: String, deviceID: UUID?, transactions: [UInt64: TransactionRecord]) {
        self.accountID = accountID
        self.deviceID = deviceID
        self.transactions = transactions
    }
}

extension StoreEngine {
    /// The device identifier `storekit receipt write` uses when given none: all zeros.
    static let zeroDevice = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Finds the account an app receipt of this store belongs to.
    ///
    /// A receipt names no account in the clear: its opaque value (attribute 4) is derived from the tenant, the
    /// account, the app and the device, and the device's identifier is only hashed. So the account is found
    /// from the purchases the receipt lists — every in-app transaction identifier must be a transaction of this
    /// store, for the receipt's app and product, and all of one account — which works whatever device fetched the
    /// receipt. The device is then found, when possible, by recomputing the opaque value for each device the
    /// account used (and for the all-zero identifier `storekit receipt write` uses by default). A receipt that
    /// lists no purchase is attributed by that opaque value alone.
    ///
    /// - Returns: the holder, or `nil` for a receipt that lists no purchase and whose opaque value matches no
    ///   account and device the store knows.
    /// - Throws: ``StoreError`` `unknownTransaction` when the receipt lists a transaction this store does not
    ///   have (deleted, or issued by another store that shares the certificate authority), or transactions of
    ///   several accounts.
    public func receiptHolder(of receipt: AppReceipt) async throws(StoreError) -> ReceiptHolder? {
        let tenantID = tenantID
        return try await read { storage throws -> ReceiptHolder? in
            var transactions: [UInt64: TransactionRecord] = [:]
            for purchase in receipt.inAppPurchases {
                guard let id = UInt64(purchase.transactionID), let record = try storage.transaction(id: id),
                      record.bundleID == receipt.bundleID, record.productID == purchase.productID
                else {
                    throw StoreError.unknownTransaction(
                        "The receipt lists transaction \(purchase.transactionID) (\(purchase.productID)), which this store does not have for \(receipt.bundleID). It was deleted, or another store issued the receipt."
                    )
                }
                transactions[id] = record
            }
            let owners = Set(transactions.values.map(\.accountID))
            guard owners.count <= 1 else {
                throw StoreError.unknownTransaction("The receipt lists transactions of several accounts (\(owners.sorted().joined(separator: ", "))); no receipt of this store does.")
            }
            let candidates: [String]
            if let owner = owners.first {
                candidates = [owner]
            } else {
                let saved = try storage.accounts().map(\.id)
                let buyers = try storage.transactions(matching: TransactionQuery(bundleID: receipt.bundleID)).map(\.accountID)
                candidates = Array(Set(saved + buyers + [StoreDefaults.accountID])).sorted()
            }
            for accountID in candidates {
                let devices = try storage.transactions(matching: TransactionQuery(accountID: accountID)).compactMap(\.deviceID)
                for device in Set(devices + [Self.zeroDevice]) {
                    let opaque = AppReceipt.deviceHash(deviceIdentifier: device, opaque: Data("\(tenantID)\u{1F}\(accountID)".utf8), bundleID: receipt.bundleID).prefix(16)
                    if Data(opaque) == receipt.opaqueValue {
                        return ReceiptHolder(accountID: accountID, deviceID: device, transactions: transactions)
                    }
                }
            }
            return owners.first.map { ReceiptHolder(accountID: $0, deviceID: nil, transactions: transactions) }
        }
    }

    /// The receipt's holder's app receipt as it stands now, signed, and the transactions it lists, oldest first.
    ///
    /// With a known device it is exactly ``appReceipt(accountID:bundleID:deviceID:appVersion:)``. Otherwise it keeps
    /// the given receipt's opaque value and hash, so it still belongs to the device it was issued to, and lists
    /// what that receipt would list for a device that neither bought nor finished anything itself: consumables
    /// only when they were bought outside any app.
    ///
    /// - Parameters:
    ///   - receipt: A receipt this store issued.
    ///   - holder: Its holder, from ``receiptHolder(of:)``.
    public func latestAppReceipt(for receipt: AppReceipt, holder: ReceiptHolder) async throws(StoreError) -> (receipt: Data, transactions: [TransactionRecord]) {
        if let deviceID = holder.deviceID {
            let data = try await appReceipt(accountID: holder.accountID, bundleID: receipt.bundleID, deviceID: deviceID, appVersion: receipt.appVersion)
            return (data, try await receiptPurchases(accountID: holder.accountID, bundleID: receipt.bundleID, deviceID: deviceID))
        }
        let purchases = try await read { storage in
            try storage.transactions(matching: TransactionQuery(accountID: holder.accountID, bundleID: receipt.bundleID)).filter { record in
                record.state.isCompleted && record.origin != .restore && (record.productType != .consumable || record.deviceID == nil)
            }
        }
        // A receipt issued before downloads were recorded keeps the dates and version it said.
        let download = try await appDownload(accountID: holder.accountID, bundleID: receipt.bundleID) ?? AppDownload(
            bundleID: receipt.bundleID, date: receipt.originalPurchaseDate ?? purchases.first?.originalPurchaseDate ?? clock.now(),
            originalVersion: receipt.originalAppVersion ?? StoreDefaults.appVersion
        )
        // The contents are built as for any device, then given the original receipt's device binding.
        var latest = appReceiptContents(purchases: purchases, download: download, deviceID: Self.zeroDevice, appVersion: receipt.appVersion, accountID: holder.accountID)
        latest.opaqueValue = receipt.opaqueValue
        latest.sha1Hash = receipt.sha1Hash
        do {
            return (try signer.keys().receipts.sign(latest), purchases)
        } catch {
            throw StoreError.signingFailure("Could not sign the receipt: \(error). Check the certificate authority in the data directory.")
        }
    }
}
