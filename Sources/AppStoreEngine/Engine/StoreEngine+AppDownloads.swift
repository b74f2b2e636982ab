import Foundation

extension StoreEngine {
    /// Records that an account's device runs an app at a version: the account's first download of the app, now, when it
    /// has none, else the version its device runs now. Asking for an app transaction or a receipt from a device records
    /// it, as a first purchase in the app does.
    ///
    /// Writes only when something changed, so a device asking again costs a read.
    ///
    /// - Parameters:
    ///   - accountID: The customer's account.
    ///   - bundleID: The app.
    ///   - appVersion: The version (`CFBundleVersion`) the device runs.
    /// - Returns: the account's download of the app as recorded now.
    @discardableResult
    public func recordAppDownload(accountID: String, bundleID: String, appVersion: String) async throws(StoreError) -> AppDownload {
        if let known = try await appDownload(accountID: accountID, bundleID: bundleID), known.version == appVersion { return known }
        return try await perform { try $0.recordAppDownload(accountID: accountID, bundleID: bundleID, appVersion: appVersion) }
    }

    /// The account's download of an app, if the store recorded one.
    public func appDownload(accountID: String, bundleID: String) async throws(StoreError) -> AppDownload? {
        try await read { try $0.account(id: accountID)?.download(of: bundleID) }
    }
}

extension StoreOperation {
    /// Records the account's download of the app now, or the version its device runs now; see
    /// ``StoreEngine/recordAppDownload(accountID:bundleID:appVersion:)``.
    func recordAppDownload(accountID: String, bundleID: String, appVersion: String) throws -> AppDownload {
        var account = try self.account(accountID)
        if let index = account.appDownloads.firstIndex(where: { $0.bundleID == bundleID }) {
            guard account.appDownloads[index].version != appVersion else { return account.appDownloads[index] }
            account.appDownloads[index].version = appVersion
        } else {
            account.appDownloads.append(AppDownload(bundleID: bundleID, date: now, originalVersion: appVersion))
        }
        try storage.write(.saveAccount(account))
        return account.download(of: bundleID)!
    }
}
