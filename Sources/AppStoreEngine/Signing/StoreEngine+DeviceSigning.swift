import AppStoreFormats
public import Foundation

/// Signed data as StoreKit hands it to an app on a device: Apple's payloads plus `deviceVerification` and
/// `deviceVerificationNonce`, which tie each signature to the device that asked for it.
extension StoreEngine {
    /// The DER root certificates the store's JWS chains lead to: what a device checks signed transactions against.
    public nonisolated var rootCertificates: [Data] {
        get throws(StoreError) { try signer.certificateAuthority.rootCertificatesDER }
    }

    /// Transactions signed now for the device `deviceVerificationID`, in the order of `ids`.
    ///
    /// - Throws: `StoreError.unknownTransaction` for an identifier the store does not have;
    ///   `invalidTransactionState` for a transaction that never completed.
    public func signedTransactions(_ ids: [UInt64], deviceVerificationID: UUID) async throws(StoreError) -> [String] {
        let records = try await read { storage in
            try ids.map { id in
                guard let record = try storage.transaction(id: id) else {
                    throw StoreError.unknownTransaction("No transaction \(id) in this store.")
                }
                return record
            }
        }
        return try records.map { record throws(StoreError) in
            guard record.state.isCompleted else {
                throw StoreError.invalidTransactionState("Transaction \(record.id) is \(record.state); only completed transactions are signed.")
            }
            var payload = transactionPayload(record)
            let nonce = UUID.random()
            payload.deviceVerificationNonce = nonce
            payload.deviceVerification = DeviceVerification.value(nonce: nonce, deviceVerificationID: deviceVerificationID).base64EncodedString()
            return try sign(payload)
        }
    }

    /// The renewal info of subscriptions signed now for the device `deviceVerificationID`, in the order of `ids`.
    ///
    /// - Parameters:
    ///   - ids: The subscriptions' original transaction identifiers.
    ///   - deviceVerificationID: The device the signatures are for.
    /// - Throws: `StoreError.unknownTransaction` for an identifier that is not a subscription of this store.
    public func signedRenewalInfo(subscriptions ids: [UInt64], deviceVerificationID: UUID) async throws(StoreError) -> [String] {
        let found = try await read { storage in
            try ids.map { id in
                guard let subscription = try storage.subscription(id: id) else {
                    throw StoreError.unknownTransaction("No subscription has original transaction \(id) in this store.")
                }
                return (subscription, try storage.account(id: subscription.accountID)?.storefront)
            }
        }
        return try found.map { subscription, storefront throws(StoreError) in
            var payload = renewalInfoPayload(subscription, storefront: storefront ?? settings.storefront)
            let nonce = UUID.random()
            payload.deviceVerificationNonce = nonce
            payload.deviceVerification = DeviceVerification.value(nonce: nonce, deviceVerificationID: deviceVerificationID).base64EncodedString()
            return try sign(payload)
        }
    }

    /// The app transaction of an account's copy of an app, signed now for the device `deviceVerificationID`, which runs
    /// the app at `appVersion`: asking records the account's download of the app, or the version its device runs now
    /// (``recordAppDownload(accountID:bundleID:appVersion:)``).
    public func signedAppTransaction(accountID: String, bundleID: String, deviceVerificationID: UUID, appVersion: String) async throws(StoreError) -> String {
        try await recordAppDownload(accountID: accountID, bundleID: bundleID, appVersion: appVersion)
        var payload = try await appTransactionPayload(accountID: accountID, bundleID: bundleID)
        let nonce = UUID.random()
        payload.deviceVerificationNonce = nonce
        payload.deviceVerification = DeviceVerification.value(nonce: nonce, deviceVerificationID: deviceVerificationID).base64EncodedString()
        return try sign(payload)
    }
}
