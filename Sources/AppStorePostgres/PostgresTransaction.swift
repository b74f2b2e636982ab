import AppStoreEngine
import Foundation
import JSONCoding
import PostgresNIO

/// Reads and writes of one tenant inside a transaction of a ``PostgresSession``: the same tables, columns and JSON
/// bodies as `SQLiteStorage`'s (see `PostgresMigrations`). Reads wait for their answer; writes are held back and
/// sent with the next read or the commit (see `PostgresPipeline`). Used only on the transaction's thread.
struct PostgresTransaction: StorageTransaction {
    let pipeline: PostgresPipeline
    let tenant: String
    /// What a write transaction counts and notes; `nil` in a snapshot read.
    let writes: PostgresWriteState?

    private var configuration: PostgresStorage.Configuration { pipeline.session.configuration }

    /// How many changes the transactions of the tenant's write state wrote so far: what a member wrote is the growth.
    var changesWritten: Int { writes?.changesWritten ?? 0 }

    // MARK: Reads

    func account(id: String) throws -> Account? {
        if let writes, writes.expectedAccounts.contains(id) {
            if writes.accountsReadAhead == nil { try pipeline.flush() }
            if let readAhead = writes.accountsReadAhead {
                return try readAhead[id].map { try JSONReader().decode(Account.self, from: $0) }
            }
        }
        return try bodies(Account.self, "SELECT body FROM account WHERE tenant = \(tenant) AND id = \(id)", reading: "account").first
    }

    func accounts() throws -> [Account] {
        try bodies(Account.self, "SELECT body FROM account WHERE tenant = \(tenant) ORDER BY id", reading: "account")
    }

    /// One statement for all of them, the identifiers bound as one array.
    func accounts(ids: [String]) throws -> [String: Account] {
        guard !ids.isEmpty else { return [:] }
        let rows = try pipeline.rows("SELECT id, body FROM account WHERE tenant = \(tenant) AND id = ANY(\(Array(Set(ids))))", reading: ["account"])
        var found: [String: Account] = [:]
        for row in rows {
            let (id, body): (String, String)
            do {
                (id, body) = try row.decode((String, String).self)
            } catch {
                throw PostgresFailure.describe(error, running: nil, on: configuration)
            }
            found[id] = try JSONReader().decode(Account.self, from: body)
        }
        return found
    }

    func transaction(id: UInt64) throws -> TransactionRecord? {
        let id = try Int64(checking: id)
        return try bodies(TransactionRecord.self, "SELECT body FROM store_transaction WHERE tenant = \(tenant) AND id = \(id)", reading: "store_transaction").first
    }

    func transactions(matching query: TransactionQuery) throws -> [TransactionRecord] {
        var filter = Filter(tenant: tenant)
        if let accountID = query.accountID { filter.add("account_id", accountID) }
        if let bundleID = query.bundleID { filter.add("bundle_id", bundleID) }
        if let productID = query.productID { filter.add("product_id", productID) }
        if let originalID = query.originalID { filter.add("original_id", try Int64(checking: originalID)) }
        if let idempotencyKey = query.idempotencyKey { filter.add("idempotency_key", idempotencyKey) }
        return try bodies(TransactionRecord.self, filter.query("SELECT body FROM store_transaction", then: "ORDER BY id"), reading: "store_transaction")
    }

    func finishedTransactionIDs(deviceID: UUID) throws -> Set<UInt64> {
        let rows = try pipeline.rows(
            "SELECT transaction_id FROM finished_transaction WHERE tenant = \(tenant) AND device_id = \(deviceID.uuidString)",
            reading: ["finished_transaction"]
        )
        return Set(try rows.map { row in try UInt64(checking: try Self.decode(Int64.self, row, on: configuration)) })
    }

    func purchaseIntents(accountID: String, bundleID: String) throws -> [PurchaseIntentRecord] {
        try bodies(
            PurchaseIntentRecord.self,
            "SELECT body FROM purchase_intent WHERE tenant = \(tenant) AND account_id = \(accountID) AND bundle_id = \(bundleID) ORDER BY date, id"
        )
    }

    func subscription(id: UInt64) throws -> SubscriptionRecord? {
        let id = try Int64(checking: id)
        return try bodies(SubscriptionRecord.self, "SELECT body FROM subscription WHERE tenant = \(tenant) AND id = \(id)", reading: "subscription").first
    }

    /// Read once per write transaction until it writes subscriptions: a subscription purchase looks at the account's
    /// subscriptions in the app three times (its group, its offer's eligibility, the notification's subtype).
    func subscriptions(accountID: String, bundleID: String?) throws -> [SubscriptionRecord] {
        let key = PostgresWriteState.SubscriptionsKey(accountID: accountID, bundleID: bundleID)
        if let read = writes?.subscriptionsRead[key] { return read }
        var filter = Filter(tenant: tenant)
        filter.add("account_id", accountID)
        if let bundleID { filter.add("bundle_id", bundleID) }
        let read = try bodies(SubscriptionRecord.self, filter.query("SELECT body FROM subscription", then: "ORDER BY id"), reading: "subscription")
        writes?.subscriptionsRead[key] = read
        return read
    }

    func subscriptionsDue(by date: Date, limit: Int) throws -> [SubscriptionRecord] {
        // Nothing is due when the earliest event known at the lock is later, or there is none.
        if let state = try stateAtLock(unlessWritten: \.wroteSubscriptions), state.nextSubscriptionEvent.map({ $0 > date }) ?? true {
            return []
        }
        return try bodies(
            SubscriptionRecord.self,
            """
            SELECT body FROM subscription WHERE tenant = \(tenant) AND next_event_date <= \(date.timeIntervalSince1970)
            ORDER BY next_event_date, id LIMIT \(limit)
            """,
            reading: "subscription"
        )
    }

    func nextSubscriptionEventDate() throws -> Date? {
        if let state = try stateAtLock(unlessWritten: \.wroteSubscriptions) { return state.nextSubscriptionEvent }
        let rows = try pipeline.rows("SELECT MIN(next_event_date) FROM subscription WHERE tenant = \(tenant)", reading: ["subscription"])
        return try Self.decodeIfPresent(Double?.self, rows.first, on: configuration)?.map(Date.init(timeIntervalSince1970:))
    }

    func notifications(matching query: NotificationQuery) throws -> [NotificationRecord] {
        var filter = Filter(tenant: tenant)
        if let bundleID = query.bundleID { filter.add("bundle_id", bundleID) }
        if let startDate = query.startDate { filter.add("date", ">=", startDate.timeIntervalSince1970) }
        if let endDate = query.endDate { filter.add("date", "<", endDate.timeIntervalSince1970) }
        var order = "ORDER BY date, sequence"
        if let limit = query.limit { order += " LIMIT \(filter.bind(limit))" }
        return try bodies(NotificationRecord.self, filter.query("SELECT body FROM notification", then: order), reading: "notification")
    }

    func notificationsDue(by date: Date, limit: Int) throws -> [NotificationRecord] {
        try bodies(
            NotificationRecord.self,
            """
            SELECT body FROM notification WHERE tenant = \(tenant) AND next_attempt_date <= \(date.timeIntervalSince1970)
            ORDER BY next_attempt_date, sequence LIMIT \(limit)
            """
        )
    }

    func pendingNotifications(originalTransactionID: UInt64) throws -> [NotificationRecord] {
        let originalID = try Int64(checking: originalTransactionID)
        return try bodies(
            NotificationRecord.self,
            """
            SELECT body FROM notification
            WHERE tenant = \(tenant) AND original_transaction_id = \(originalID) AND next_attempt_date IS NOT NULL
            ORDER BY sequence
            """
        )
    }

    func notification(id: UUID) throws -> NotificationRecord? {
        try bodies(NotificationRecord.self, "SELECT body FROM notification WHERE tenant = \(tenant) AND id = \(id.uuidString)").first
    }

    func clockState() throws -> StoreClockState {
        if let state = try stateAtLock(unlessWritten: \.wroteClock) { return state.clock }
        let rows = try pipeline.rows("SELECT clock_offset, time_rate FROM store_clock WHERE tenant = \(tenant)")
        guard let row = rows.first else { return StoreClockState() }
        let (offset, rate) = try Self.decodeColumns((Double, Int64?).self, row, on: configuration)
        return StoreClockState(offset: offset, timeRate: rate.flatMap { TimeRate(rawValue: Int($0)) })
    }

    func snapshot() throws -> TenantSnapshot {
        let finished = try pipeline.rows(
            "SELECT device_id, transaction_id FROM finished_transaction WHERE tenant = \(tenant) ORDER BY device_id, transaction_id"
        ).compactMap { row -> TenantSnapshot.FinishedMark? in
            let (device, transaction) = try Self.decodeColumns((String, Int64).self, row, on: configuration)
            return try UUID(uuidString: device).map { TenantSnapshot.FinishedMark(deviceID: $0, transactionID: try UInt64(checking: transaction)) }
        }
        let intents = try bodies(PurchaseIntentRecord.self, "SELECT body FROM purchase_intent WHERE tenant = \(tenant) ORDER BY date, id")
        let subscriptions = try bodies(SubscriptionRecord.self, "SELECT body FROM subscription WHERE tenant = \(tenant) ORDER BY id")
        let next: UInt64
        if let writes {
            next = try nextID(writes)
        } else {
            let rows = try pipeline.rows("SELECT next_transaction_id FROM tenant WHERE id = \(tenant)")
            next = try Self.decodeIfPresent(Int64.self, rows.first, on: configuration).map { value throws(StoreError) in try UInt64(checking: value) }
                ?? TransactionRecord.firstID
        }
        return TenantSnapshot(
            accounts: try accounts(), transactions: try transactions(matching: TransactionQuery()), finishedTransactions: finished,
            purchaseIntents: intents, subscriptions: subscriptions, notifications: try notifications(matching: NotificationQuery()),
            clock: try clockState(), nextTransactionID: next
        )
    }

    func apiKeys() throws -> [APIKeyRecord] {
        try pipeline.rows(
            "SELECT key_id, issuer_id, public_key_pem, created, revoked, tenant FROM api_key WHERE tenant = \(tenant) ORDER BY created, key_id"
        ).map { row throws(StoreError) in try Self.storedAPIKey(row, on: configuration).key }
    }

    func settingsVersion() throws -> Int {
        if let state = try stateAtLock(unlessWritten: \.wroteSettings) { return state.settingsVersion }
        let rows = try pipeline.rows("SELECT version FROM tenant_settings WHERE tenant = \(tenant)", reading: ["tenant_settings"])
        return try rows.first.map { row throws(StoreError) in Int(try Self.decode(Int64.self, row, on: configuration)) } ?? 0
    }

    func storedSettings() throws -> StoredSettings {
        guard let row = try pipeline.rows("SELECT version, body FROM tenant_settings WHERE tenant = \(tenant)").first else {
            return StoredSettings()
        }
        let (version, body) = try Self.decodeColumns((Int64, String?).self, row, on: configuration)
        return StoredSettings(version: Int(version), settings: try body.map { try JSONReader().decode(StoreSettings.self, from: $0) })
    }

    func retentionMessaging(bundleID: String) throws -> RetentionMessagingContent? {
        try bodies(RetentionMessagingContent.self, "SELECT body FROM retention_messaging WHERE tenant = \(tenant) AND bundle_id = \(bundleID)").first
    }

    func externalPurchaseToken(id: String) throws -> ExternalPurchaseTokenRecord? {
        try bodies(ExternalPurchaseTokenRecord.self, "SELECT body FROM external_purchase_token WHERE tenant = \(tenant) AND id = \(id)").first
    }

    func externalPurchaseTokens(accountID: String, bundleID: String) throws -> [ExternalPurchaseTokenRecord] {
        try bodies(
            ExternalPurchaseTokenRecord.self,
            "SELECT body FROM external_purchase_token WHERE tenant = \(tenant) AND account_id = \(accountID) AND bundle_id = \(bundleID)"
        ).sorted { ($0.creationDate, $0.id) < ($1.creationDate, $1.id) }
    }

    func externalPurchaseTokensDue(by date: Date, limit: Int) throws -> [ExternalPurchaseTokenRecord] {
        try bodies(
            ExternalPurchaseTokenRecord.self,
            """
            SELECT body FROM external_purchase_token WHERE tenant = \(tenant) AND next_event_date <= \(date.timeIntervalSince1970)
            ORDER BY next_event_date, id LIMIT \(limit)
            """
        )
    }

    func nextExternalPurchaseTokenEventDate() throws -> Date? {
        let rows = try pipeline.rows("SELECT MIN(next_event_date) FROM external_purchase_token WHERE tenant = \(tenant)")
        return try Self.decodeIfPresent(Double?.self, rows.first, on: configuration)?.map(Date.init(timeIntervalSince1970:))
    }

    func externalPurchaseReport(requestIdentifier: String) throws -> ExternalPurchaseReportRecord? {
        try bodies(
            ExternalPurchaseReportRecord.self,
            "SELECT body FROM external_purchase_report WHERE tenant = \(tenant) AND request_identifier = \(requestIdentifier)"
        ).first
    }

    func massExtension(productID: String, requestIdentifier: String) throws -> MassExtensionRecord? {
        try bodies(
            MassExtensionRecord.self,
            "SELECT body FROM mass_extension WHERE tenant = \(tenant) AND product_id = \(productID) AND request_identifier = \(requestIdentifier)"
        ).first
    }

    func catalogVersion() throws -> Int {
        if let state = try stateAtLock(unlessWritten: \.wroteCatalog) { return state.catalogVersion }
        let rows = try pipeline.rows("SELECT version FROM tenant_catalog WHERE tenant = \(tenant)", reading: ["tenant_catalog"])
        return try rows.first.map { row throws(StoreError) in Int(try Self.decode(Int64.self, row, on: configuration)) } ?? 0
    }

    func storedCatalog() throws -> StoredCatalog {
        guard let row = try pipeline.rows("SELECT version, document FROM tenant_catalog WHERE tenant = \(tenant)").first else {
            return StoredCatalog()
        }
        let (version, document) = try Self.decodeColumns((Int64, String).self, row, on: configuration)
        return StoredCatalog(version: Int(version), document: Data(document.utf8))
    }

    func notificationDestinations() throws -> NotificationDestinations? {
        try bodies(NotificationDestinations.self, "SELECT body FROM notification_destinations WHERE tenant = \(tenant) AND body IS NOT NULL").first
    }

    /// The number the last write of the destinations took from `notification_destinations_stamp`; 0 before any.
    func notificationDestinationsStamp() throws -> Int64? {
        if let state = try stateAtLock(unlessWritten: \.wroteDestinations) { return state.destinationsStamp }
        let rows = try pipeline.rows("SELECT stamp FROM notification_destinations WHERE tenant = \(tenant)", reading: ["notification_destinations"])
        return try rows.first.map { row throws(StoreError) in try Self.decode(Int64.self, row, on: configuration) } ?? 0
    }

    /// The key, and the tenant holding it, in a row of `key_id, issuer_id, public_key_pem, created, revoked, tenant`.
    static func storedAPIKey(_ row: PostgresRow, on configuration: PostgresStorage.Configuration) throws(StoreError) -> StoredAPIKey {
        let (keyID, issuerID, pem, created, revoked, tenant) = try decodeColumns(
            (String, String, String, Double, Bool, String).self, row, on: configuration
        )
        let key = APIKeyRecord(keyID: keyID, issuerID: issuerID, publicKeyPEM: pem, created: Date(timeIntervalSince1970: created), revoked: revoked)
        return StoredAPIKey(tenant: tenant, key: key)
    }

    /// In a write transaction that has not written what `written` names, the state read with the tenant's lock
    /// (sending the lock first if it was not sent yet); `nil` otherwise, and the caller reads the table.
    private func stateAtLock(
        unlessWritten written: KeyPath<PostgresWriteState, Bool>
    ) throws(StoreError) -> TenantStateAtLock? {
        guard let writes, !writes[keyPath: written] else { return nil }
        if writes.stateAtLock == nil { try pipeline.flush() }
        return writes.stateAtLock
    }

    // MARK: Writes

    /// Counts in memory from the identifier read with the tenant's lock; `PostgresSession.transaction` writes the
    /// counter back before committing.
    func allocateTransactionID() throws -> UInt64 {
        guard let writes else { throw StoreError.storageFailure("Transaction identifiers are allocated only in a write transaction.") }
        let next = try nextID(writes)
        writes.nextID = next + 1
        return next
    }

    /// The next identifier to hand out: the one counted in memory, or the one the lock's answer brought, which the
    /// first identifier waits for when nothing was sent yet.
    private func nextID(_ writes: PostgresWriteState) throws(StoreError) -> UInt64 {
        if let next = writes.nextID ?? writes.storedNextID { return next }
        try pipeline.flush()
        guard let stored = writes.storedNextID else {
            throw .storageFailure("PostgreSQL storage at \(configuration) sent the tenant's lock without reading its counter.")
        }
        return stored
    }

    func write(_ change: StorageChange) throws {
        guard let writes else { throw StoreError.storageFailure("Storage is written only inside transaction(tenant:), not in a read.") }
        writes.changesWritten += 1
        switch change {
        case .saveSubscription, .deleteSubscriptions, .deleteAllTransactions: writes.notedSubscriptionWrite()
        case .saveClockState: writes.wroteClock = true
        case .saveSettings: writes.wroteSettings = true
        case .saveCatalog: writes.wroteCatalog = true
        case .saveNotificationDestinations: writes.wroteDestinations = true
        case .saveAccount(let account): writes.expectedAccounts.remove(account.id)
        case .eraseTenant, .restore:
            writes.notedSubscriptionWrite()
            writes.wroteClock = true
            writes.expectedAccounts = []
        case .deleteTenant:
            writes.notedSubscriptionWrite()
            writes.wroteClock = true
            writes.wroteDestinations = true
            writes.expectedAccounts = []
        default: break
        }
        switch change {
        case .saveAccount(let account):
            let body = try Self.encode(account)
            pipeline.hold("""
                INSERT INTO account (tenant, id, body) VALUES (\(tenant), \(account.id), \(body))
                ON CONFLICT (tenant, id) DO UPDATE SET body = excluded.body
                """, touching: ["account"])
        case .saveTransaction(let record):
            let (id, originalID, body) = (try Int64(checking: record.id), try Int64(checking: record.originalID), try Self.encode(record))
            pipeline.holdRow(.storeTransaction, key: .init(tenant: tenant, id: id)) { row in
                row.append(tenant)
                row.append(id)
                row.append(originalID)
                row.append(record.accountID)
                row.append(record.bundleID)
                row.append(record.productID)
                row.append(record.idempotencyKey)
                row.append(body)
            }
        case .deleteTransactions(let ids):
            let ids = try ids.map { id throws(StoreError) in try Int64(checking: id) }
            pipeline.hold("DELETE FROM store_transaction WHERE tenant = \(tenant) AND id = ANY(\(ids))")
            pipeline.hold("DELETE FROM finished_transaction WHERE tenant = \(tenant) AND transaction_id = ANY(\(ids))")
            pipeline.hold("DELETE FROM notification WHERE tenant = \(tenant) AND transaction_id = ANY(\(ids))")
        case .deleteAllTransactions:
            for table in ["store_transaction", "finished_transaction", "subscription", "notification"] {
                pipeline.hold("DELETE FROM \(unescaped: table) WHERE tenant = \(tenant)")
            }
        case .eraseTenant:
            for table in ["account", "store_transaction", "finished_transaction", "purchase_intent", "subscription", "notification", "store_clock", "mass_extension",
                          "external_purchase_token", "external_purchase_report"] {
                pipeline.hold("DELETE FROM \(unescaped: table) WHERE tenant = \(tenant)")
            }
            // The tenant's row stays, holding the lock; only its counter starts over.
            writes.nextID = TransactionRecord.firstID
        case .deleteTenant:
            try write(.eraseTenant)
            for table in ["tenant_settings", "notification_destinations", "api_key", "tenant_catalog", "retention_messaging"] {
                pipeline.hold("DELETE FROM \(unescaped: table) WHERE tenant = \(tenant)")
            }
            // The row goes too, at the commit that releases its lock: a later transaction makes it anew.
            pipeline.hold("DELETE FROM tenant WHERE id = \(tenant)")
            writes.nextID = nil
            writes.deletedTenant = true
        case .restore(let snapshot):
            try write(.eraseTenant)
            for account in snapshot.accounts { try write(.saveAccount(account)) }
            for record in snapshot.transactions { try write(.saveTransaction(record)) }
            for mark in snapshot.finishedTransactions { try write(.markFinished(transactionID: mark.transactionID, deviceID: mark.deviceID)) }
            for intent in snapshot.purchaseIntents { try write(.savePurchaseIntent(intent)) }
            for subscription in snapshot.subscriptions { try write(.saveSubscription(subscription)) }
            for notification in snapshot.notifications { try write(.saveNotification(notification)) }
            if snapshot.clock != StoreClockState() { try write(.saveClockState(snapshot.clock)) }
            writes.nextID = snapshot.nextTransactionID
        case .markFinished(let transactionID, let deviceID):
            let id = try Int64(checking: transactionID)
            pipeline.hold("""
                INSERT INTO finished_transaction (tenant, device_id, transaction_id) VALUES (\(tenant), \(deviceID.uuidString), \(id))
                ON CONFLICT DO NOTHING
                """)
        case .savePurchaseIntent(let intent):
            let body = try Self.encode(intent)
            pipeline.hold("""
                INSERT INTO purchase_intent (tenant, id, account_id, bundle_id, date, body)
                VALUES (\(tenant), \(intent.id.uuidString), \(intent.accountID), \(intent.bundleID), \(intent.date.timeIntervalSince1970), \(body))
                ON CONFLICT (tenant, id) DO UPDATE SET account_id = excluded.account_id, bundle_id = excluded.bundle_id,
                    date = excluded.date, body = excluded.body
                """)
        case .deletePurchaseIntent(let id):
            pipeline.hold("DELETE FROM purchase_intent WHERE tenant = \(tenant) AND id = \(id.uuidString)")
        case .saveSubscription(let subscription):
            let (id, body) = (try Int64(checking: subscription.id), try Self.encode(subscription))
            pipeline.holdRow(.subscription, key: .init(tenant: tenant, id: id)) { row in
                row.append(tenant)
                row.append(id)
                row.append(subscription.accountID)
                row.append(subscription.bundleID)
                row.append(subscription.nextEventDate?.timeIntervalSince1970)
                row.append(body)
            }
        case .deleteSubscriptions(let ids):
            let ids = try ids.map { id throws(StoreError) in try Int64(checking: id) }
            pipeline.hold("DELETE FROM subscription WHERE tenant = \(tenant) AND id = ANY(\(ids))")
        case .saveNotification(let notification):
            let (transactionID, body) = (try Int64(checking: notification.transactionID), try Self.encode(notification))
            let originalID = try Int64(checking: notification.originalTransactionID)
            pipeline.holdRow(.notification) { row in
                row.append(tenant)
                row.append(notification.id.uuidString)
                row.append(notification.bundleID)
                row.append(transactionID)
                row.append(originalID)
                row.append(notification.date.timeIntervalSince1970)
                row.append(notification.delivery.nextAttemptDate?.timeIntervalSince1970)
                row.append(body)
            }
        case .updateNotification(let notification):
            let body = try Self.encode(notification)
            let nextAttempt = notification.delivery.nextAttemptDate?.timeIntervalSince1970
            pipeline.hold("""
                UPDATE notification SET next_attempt_date = \(nextAttempt), body = \(body)
                WHERE tenant = \(tenant) AND id = \(notification.id.uuidString)
                """)
        case .saveClockState(let clock):
            let rate = clock.timeRate.map { Int64($0.rawValue) }
            pipeline.hold("""
                INSERT INTO store_clock (tenant, clock_offset, time_rate) VALUES (\(tenant), \(clock.offset), \(rate))
                ON CONFLICT (tenant) DO UPDATE SET clock_offset = excluded.clock_offset, time_rate = excluded.time_rate
                """)
        case .addAPIKey(let key):
            // Another tenant's transaction may add the same identifier meanwhile; the primary key refuses the second.
            guard try pipeline.rows("SELECT 1 FROM api_key WHERE key_id = \(key.keyID)").isEmpty else {
                throw StoreError.duplicateAPIKey(key.keyID)
            }
            pipeline.hold("""
                INSERT INTO api_key (key_id, tenant, issuer_id, public_key_pem, created, revoked)
                VALUES (\(key.keyID), \(tenant), \(key.issuerID), \(key.publicKeyPEM), \(key.created.timeIntervalSince1970), \(key.revoked))
                """)
        case .revokeAPIKey(let keyID):
            pipeline.hold("UPDATE api_key SET revoked = true WHERE tenant = \(tenant) AND key_id = \(keyID)")
        case .saveSettings(let settings):
            let body = try settings.map { try Self.encode($0) }
            pipeline.hold("""
                INSERT INTO tenant_settings (tenant, version, body) VALUES (\(tenant), 1, \(body))
                ON CONFLICT (tenant) DO UPDATE SET version = tenant_settings.version + 1, body = excluded.body
                """)
        case .saveNotificationDestinations(let destinations):
            // NULL forgets them; the row stays, so its stamp only grows.
            let body = try destinations.map { try Self.encode($0) }
            pipeline.hold("""
                INSERT INTO notification_destinations (tenant, body) VALUES (\(tenant), \(body))
                ON CONFLICT (tenant) DO UPDATE SET body = excluded.body, stamp = excluded.stamp
                """)
        case .saveCatalog(let document):
            let text = String(decoding: document, as: UTF8.self)
            pipeline.hold("""
                INSERT INTO tenant_catalog (tenant, version, document) VALUES (\(tenant), 1, \(text))
                ON CONFLICT (tenant) DO UPDATE SET version = tenant_catalog.version + 1, document = excluded.document
                """)
        case .saveRetentionMessaging(let bundleID, let content?):
            let body = try Self.encode(content)
            pipeline.hold("""
                INSERT INTO retention_messaging (tenant, bundle_id, body) VALUES (\(tenant), \(bundleID), \(body))
                ON CONFLICT (tenant, bundle_id) DO UPDATE SET body = excluded.body
                """)
        case .saveRetentionMessaging(let bundleID, nil):
            pipeline.hold("DELETE FROM retention_messaging WHERE tenant = \(tenant) AND bundle_id = \(bundleID)")
        case .saveMassExtension(let record):
            let body = try Self.encode(record)
            pipeline.hold("""
                INSERT INTO mass_extension (tenant, product_id, request_identifier, body)
                VALUES (\(tenant), \(record.productID), \(record.requestIdentifier), \(body))
                ON CONFLICT (tenant, product_id, request_identifier) DO UPDATE SET body = excluded.body
                """)
        case .saveExternalPurchaseToken(let record):
            let (body, due) = (try Self.encode(record), record.nextEventDate?.timeIntervalSince1970)
            pipeline.hold("""
                INSERT INTO external_purchase_token (tenant, id, account_id, bundle_id, next_event_date, body)
                VALUES (\(tenant), \(record.id), \(record.accountID), \(record.bundleID), \(due), \(body))
                ON CONFLICT (tenant, id) DO UPDATE SET next_event_date = excluded.next_event_date, body = excluded.body
                """)
        case .saveExternalPurchaseReport(let record):
            let body = try Self.encode(record)
            pipeline.hold("""
                INSERT INTO external_purchase_report (tenant, request_identifier, body)
                VALUES (\(tenant), \(record.requestIdentifier), \(body))
                ON CONFLICT (tenant, request_identifier) DO UPDATE SET body = excluded.body
                """)
        }
    }

    // MARK: Rows

    /// The records whose JSON bodies a query selects, read back with `JSONReader` (as `SQLiteStorage` does); `table`
    /// names the one table the query reads, when it reads one (see `PostgresPipeline.rows(_:reading:)`).
    private func bodies<Record: Decodable>(_ type: Record.Type, _ query: PostgresQuery, reading table: String? = nil) throws -> [Record] {
        try pipeline.rows(query, reading: table.map { [$0] }).map { row in
            try JSONReader().decode(type, from: try Self.decode(String.self, row, on: configuration))
        }
    }

    /// A row's body, written in one pass (see `RowJSONEncoder`).
    private static func encode(_ value: some Encodable) throws -> String {
        try RowJSONEncoder().encode(value)
    }

    /// The first column of a row, or `nil` without a row.
    static func decodeIfPresent<Column: PostgresDecodable>(
        _ type: Column.Type, _ row: PostgresRow?, on configuration: PostgresStorage.Configuration
    ) throws(StoreError) -> Column? {
        guard let row else { return nil }
        return try decode(type, row, on: configuration)
    }

    /// The first column of a row.
    static func decode<Column: PostgresDecodable>(
        _ type: Column.Type, _ row: PostgresRow, on configuration: PostgresStorage.Configuration
    ) throws(StoreError) -> Column {
        do {
            return try row.decode(type)
        } catch {
            throw PostgresFailure.describe(error, running: nil, on: configuration)
        }
    }

    /// The first columns of a row.
    static func decodeColumns<each Column: PostgresDecodable>(
        _ type: (repeat each Column).Type, _ row: PostgresRow, on configuration: PostgresStorage.Configuration
    ) throws(StoreError) -> (repeat each Column) {
        do {
            return try row.decode(type, context: .default)
        } catch {
            throw PostgresFailure.describe(error, running: nil, on: configuration)
        }
    }
}

/// The `WHERE` clause of a query whose conditions depend on its arguments, with its bindings.
private struct Filter {
    private var conditions: [String] = []
    private var bindings = PostgresBindings()

    init(tenant: String) {
        add("tenant", tenant)
    }

    /// A placeholder (`$n`) for a value.
    mutating func bind(_ value: some PostgresNonThrowingEncodable) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }

    /// Adds `column = value`.
    mutating func add(_ column: String, _ value: some PostgresNonThrowingEncodable) {
        add(column, "=", value)
    }

    /// Adds `column <comparison> value`.
    mutating func add(_ column: String, _ comparison: String, _ value: some PostgresNonThrowingEncodable) {
        conditions.append("\(column) \(comparison) \(bind(value))")
    }

    /// `select WHERE conditions then`.
    func query(_ select: String, then suffix: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: "\(select) WHERE \(conditions.joined(separator: " AND ")) \(suffix)", binds: bindings)
    }
}

extension PostgresRowInsert {
    /// A transaction saved: inserted, or replacing the one with its identifier.
    static let storeTransaction = PostgresRowInsert(
        table: "store_transaction",
        columns: ["tenant", "id", "original_id", "account_id", "bundle_id", "product_id", "idempotency_key", "body"],
        conflict: """
            ON CONFLICT (tenant, id) DO UPDATE SET original_id = excluded.original_id, account_id = excluded.account_id, \
            bundle_id = excluded.bundle_id, product_id = excluded.product_id, idempotency_key = excluded.idempotency_key, \
            body = excluded.body
            """
    )

    /// A subscription saved: inserted, or replacing the one with its identifier.
    static let subscription = PostgresRowInsert(
        table: "subscription",
        columns: ["tenant", "id", "account_id", "bundle_id", "next_event_date", "body"],
        conflict: """
            ON CONFLICT (tenant, id) DO UPDATE SET account_id = excluded.account_id, bundle_id = excluded.bundle_id, \
            next_event_date = excluded.next_event_date, body = excluded.body
            """
    )

    /// A notification added to the outbox.
    static let notification = PostgresRowInsert(
        table: "notification",
        columns: ["tenant", "id", "bundle_id", "transaction_id", "original_transaction_id", "date", "next_attempt_date", "body"],
        conflict: ""
    )
}
