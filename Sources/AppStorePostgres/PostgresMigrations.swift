import AppStoreEngine
import PostgresNIO

/// One step of the schema's history: a version, a name that says what it adds, and its statements.
struct PostgresMigration: Sendable {
    let version: Int
    let name: String
    let statements: [String]
}

/// The schema's history, applied when a storage opens. Never edit a migration that has shipped; append a new one.
///
/// The table `openstorekit_migration` records each applied version and its name. Opening takes a transaction-level
/// advisory lock first, so two processes opening a new database at once migrate it one after the other: the second
/// finds nothing left to do. The migrations run in the same transaction as the lock and the record, so a failure
/// leaves the schema as it was.
///
/// The tables and columns are `SQLiteStorage`'s, in PostgreSQL's snake case: each record is a JSON body, with the
/// columns queries filter and sort on beside it. Text that is sorted or compared is in the `"C"` collation, so the
/// order is the byte order every other storage uses, whatever the database's locale.
enum PostgresMigrations {
    static let all: [PostgresMigration] = [
        PostgresMigration(
            version: 1,
            name: "v1: tenants, accounts, transactions, finished marks, purchase intents, subscriptions, notification outbox, store clocks",
            statements: [
                // One row per tenant: its lock (every write transaction locks it first) and its next transaction identifier.
                """
                CREATE TABLE tenant (
                    id text COLLATE "C" PRIMARY KEY,
                    next_transaction_id bigint NOT NULL
                )
                """,
                """
                CREATE TABLE account (
                    tenant text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    body text NOT NULL,
                    PRIMARY KEY (tenant, id)
                )
                """,
                """
                CREATE TABLE store_transaction (
                    tenant text COLLATE "C" NOT NULL,
                    id bigint NOT NULL,
                    original_id bigint NOT NULL,
                    account_id text COLLATE "C" NOT NULL,
                    bundle_id text COLLATE "C" NOT NULL,
                    product_id text COLLATE "C" NOT NULL,
                    body text NOT NULL,
                    PRIMARY KEY (tenant, id)
                )
                """,
                // Ending in `id`, the indexes also give the order the queries ask for.
                "CREATE INDEX store_transaction_by_app ON store_transaction (tenant, account_id, bundle_id, id)",
                "CREATE INDEX store_transaction_by_account ON store_transaction (tenant, account_id, id)",
                "CREATE INDEX store_transaction_by_original ON store_transaction (tenant, original_id, id)",
                """
                CREATE TABLE finished_transaction (
                    tenant text COLLATE "C" NOT NULL,
                    device_id text COLLATE "C" NOT NULL,
                    transaction_id bigint NOT NULL,
                    PRIMARY KEY (tenant, device_id, transaction_id)
                )
                """,
                "CREATE INDEX finished_transaction_by_transaction ON finished_transaction (tenant, transaction_id)",
                """
                CREATE TABLE purchase_intent (
                    tenant text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    account_id text COLLATE "C" NOT NULL,
                    bundle_id text COLLATE "C" NOT NULL,
                    date double precision NOT NULL,
                    body text NOT NULL,
                    PRIMARY KEY (tenant, id)
                )
                """,
                "CREATE INDEX purchase_intent_by_app ON purchase_intent (tenant, account_id, bundle_id, date, id)",
                """
                CREATE TABLE subscription (
                    tenant text COLLATE "C" NOT NULL,
                    id bigint NOT NULL,
                    account_id text COLLATE "C" NOT NULL,
                    bundle_id text COLLATE "C" NOT NULL,
                    next_event_date double precision,
                    body text NOT NULL,
                    PRIMARY KEY (tenant, id)
                )
                """,
                "CREATE INDEX subscription_by_app ON subscription (tenant, account_id, bundle_id, id)",
                "CREATE INDEX subscription_by_account ON subscription (tenant, account_id, id)",
                // Seconds since 1970 of the next renewal or expiry; NULL when nothing is due.
                "CREATE INDEX subscription_by_due_date ON subscription (tenant, next_event_date, id)",
                """
                CREATE TABLE notification (
                    sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    tenant text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    bundle_id text COLLATE "C" NOT NULL,
                    transaction_id bigint NOT NULL,
                    date double precision NOT NULL,
                    next_attempt_date double precision,
                    body text NOT NULL
                )
                """,
                // `sequence` is the order notifications were written in: a tenant's inserts happen under its lock.
                "CREATE INDEX notification_by_date ON notification (tenant, date, sequence)",
                "CREATE INDEX notification_by_transaction ON notification (tenant, transaction_id)",
                "CREATE INDEX notification_by_next_attempt ON notification (tenant, next_attempt_date, sequence)",
                "CREATE UNIQUE INDEX notification_by_id ON notification (tenant, id)",
                """
                CREATE TABLE store_clock (
                    tenant text COLLATE "C" PRIMARY KEY,
                    clock_offset double precision NOT NULL,
                    time_rate bigint
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 2,
            name: "v2: notifications by original transaction",
            statements: [
                // A notification is sent only after the earlier ones of its original transaction: the senders of
                // several servers look those up in one indexed read.
                "ALTER TABLE notification ADD COLUMN original_transaction_id bigint",
                "UPDATE notification SET original_transaction_id = (body::jsonb ->> 'originalTransactionID')::bigint",
                "CREATE INDEX notification_by_original ON notification (tenant, original_transaction_id, sequence)",
            ]
        ),
        PostgresMigration(
            version: 3,
            name: "v3: the certificate authority every server on the database signs with",
            statements: [
                // One row: the authority's PEM files as a JSON object, written once by the first server that signs.
                """
                CREATE TABLE certificate_authority (
                    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                    pem_files text NOT NULL
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 4,
            name: "v4: transactions by idempotency key",
            statements: [
                // A purchase that repeats a key finds the first one in one indexed read, instead of reading every
                // transaction of the account in the app. Most transactions have no key: the index leaves them out.
                "ALTER TABLE store_transaction ADD COLUMN idempotency_key text COLLATE \"C\"",
                "UPDATE store_transaction SET idempotency_key = body::jsonb ->> 'idempotencyKey' WHERE body::jsonb ? 'idempotencyKey'",
                """
                CREATE INDEX store_transaction_by_idempotency_key ON store_transaction (tenant, account_id, bundle_id, idempotency_key, id)
                WHERE idempotency_key IS NOT NULL
                """,
            ]
        ),
        PostgresMigration(
            version: 5,
            name: "v5: App Store Server API keys",
            statements: [
                // Keyed by the key's identifier alone: identifiers are unique across the database, and a token's kid
                // finds its key, and the tenant it signs for, in one read of the primary key.
                """
                CREATE TABLE api_key (
                    key_id text COLLATE "C" PRIMARY KEY,
                    tenant text COLLATE "C" NOT NULL,
                    issuer_id text NOT NULL,
                    public_key_pem text NOT NULL,
                    created double precision NOT NULL,
                    revoked boolean NOT NULL
                )
                """,
                "CREATE INDEX api_key_by_tenant ON api_key (tenant, created, key_id)",
            ]
        ),
        PostgresMigration(
            version: 6,
            name: "v6: tenant settings",
            statements: [
                // One row per tenant whose settings were changed: every operation reads its version in the lock's
                // exchange, and the body (NULL for the configuration's settings) only when the version moved.
                """
                CREATE TABLE tenant_settings (
                    tenant text COLLATE "C" PRIMARY KEY,
                    version bigint NOT NULL,
                    body text
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 7,
            name: "v7: notification destinations",
            statements: [
                // One row per tenant given notification URLs; each notification sender reads it once per pass.
                """
                CREATE TABLE notification_destinations (
                    tenant text COLLATE "C" PRIMARY KEY,
                    body text NOT NULL
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 8,
            name: "v8: tenant catalogs",
            statements: [
                // One row per tenant given a catalog of its own: every operation reads its version in the lock's
                // exchange, and the document (the .storekit file's JSON) only when the version moved.
                """
                CREATE TABLE tenant_catalog (
                    tenant text COLLATE "C" PRIMARY KEY,
                    version bigint NOT NULL,
                    document text NOT NULL
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 9,
            name: "v9: retention messaging",
            statements: [
                // One row per app of a tenant given Retention Messaging content, read and written by its key.
                """
                CREATE TABLE retention_messaging (
                    tenant text COLLATE "C" NOT NULL,
                    bundle_id text COLLATE "C" NOT NULL,
                    body text NOT NULL,
                    PRIMARY KEY (tenant, bundle_id)
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 10,
            name: "v10: mass extensions",
            statements: [
                // One row per mass renewal-date extension request, found by its product and request identifier.
                """
                CREATE TABLE mass_extension (
                    tenant text COLLATE "C" NOT NULL,
                    product_id text COLLATE "C" NOT NULL,
                    request_identifier text COLLATE "C" NOT NULL,
                    body text NOT NULL,
                    PRIMARY KEY (tenant, product_id, request_identifier)
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 11,
            name: "v11: external purchases",
            statements: [
                // One row per external purchase token the store issued, with the date its next notification is due.
                """
                CREATE TABLE external_purchase_token (
                    tenant text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    account_id text COLLATE "C" NOT NULL,
                    bundle_id text COLLATE "C" NOT NULL,
                    next_event_date double precision,
                    body text NOT NULL,
                    PRIMARY KEY (tenant, id)
                )
                """,
                "CREATE INDEX external_purchase_token_by_app ON external_purchase_token (tenant, account_id, bundle_id)",
                "CREATE INDEX external_purchase_token_by_due_date ON external_purchase_token (tenant, next_event_date, id)",
                // One row per accepted External Purchase Server API report, found by its request identifier.
                """
                CREATE TABLE external_purchase_report (
                    tenant text COLLATE "C" NOT NULL,
                    request_identifier text COLLATE "C" NOT NULL,
                    body text NOT NULL,
                    PRIMARY KEY (tenant, request_identifier)
                )
                """,
            ]
        ),
        PostgresMigration(
            version: 12,
            name: "v12: notification destination stamps",
            statements: [
                // Each write of a tenant's destinations takes the next number, which every write transaction reads in
                // the lock's exchange: a server that keeps the destinations sees another's change at its next
                // operation. Forgetting them keeps the row, its body NULL, so the numbers only grow.
                "CREATE SEQUENCE notification_destinations_stamp",
                """
                ALTER TABLE notification_destinations
                    ADD COLUMN stamp bigint NOT NULL DEFAULT nextval('notification_destinations_stamp'),
                    ALTER COLUMN body DROP NOT NULL
                """,
            ]
        ),
    ]

    /// The first key of OpenStoreKit's advisory locks ("OSK").
    static let lockClass: Int32 = 0x4F_53_4B

    /// Brings the session's schema up to the latest version, creating the schema first when the configuration names
    /// one that does not exist.
    static func apply(on session: PostgresSession, migrations: [PostgresMigration] = all) throws(StoreError) {
        try session.execute("BEGIN")
        do {
            try session.execute("SELECT pg_advisory_xact_lock(\(lockClass), \(schemaKey(session.configuration.schema)))")
            if let schema = session.configuration.schema {
                if try session.rows("SELECT 1 FROM pg_namespace WHERE nspname = \(schema)").isEmpty {
                    try session.execute("CREATE SCHEMA \(unescaped: PostgresSession.quoted(schema))")
                }
                try session.execute("SET LOCAL search_path TO \(unescaped: PostgresSession.quoted(schema))")
            }
            try session.execute("""
                CREATE TABLE IF NOT EXISTS openstorekit_migration (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamp with time zone NOT NULL DEFAULT now()
                )
                """)
            let applied = try session.rows("SELECT version, name FROM openstorekit_migration ORDER BY version").map { row throws(StoreError) in
                try PostgresTransaction.decodeColumns((Int32, String).self, row, on: session.configuration)
            }
            if let newest = applied.last, let known = migrations.last, Int(newest.0) > known.version {
                throw StoreError.storageFailure(
                    "The database at \(session.configuration) was migrated by a newer OpenStoreKit, to \(newest.1) (this one knows up to \(known.name)). Use that version, or another database or schema."
                )
            }
            let done = Set(applied.map { Int($0.0) })
            for migration in migrations where !done.contains(migration.version) {
                for statement in migration.statements {
                    try session.execute(PostgresQuery(unsafeSQL: statement))
                }
                let version = Int32(migration.version)
                try session.execute("INSERT INTO openstorekit_migration (version, name) VALUES (\(version), \(migration.name))")
            }
            try session.execute("COMMIT")
        } catch {
            _ = try? session.execute("ROLLBACK")
            throw PostgresFailure.describe(error, running: nil, on: session.configuration)
        }
    }

    /// The second key of the migration lock: the schema, so stores in different schemas migrate independently.
    /// FNV-1a, the same in every process and version (Swift's `Hasher` is seeded per process).
    static func schemaKey(_ schema: String?) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in (schema ?? "").utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return Int32(bitPattern: hash)
    }
}
