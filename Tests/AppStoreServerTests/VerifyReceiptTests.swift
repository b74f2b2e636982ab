import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// `POST /verifyReceipt` and `POST /sandbox/verifyReceipt` on the store's own receipts.
@Suite("verifyReceipt")
struct VerifyReceiptTests {
    /// 2026-01-15T12:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let app = "com.example.demo"
    static let device = UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7")!
    static let catalog = Catalog(products: [
        CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!),
        CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!),
        CatalogProduct(
            id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
            subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
        ),
    ])

    static func monthsAfterStart(_ months: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(byAdding: .month, value: months, to: start)!
    }

    /// A fresh store (its own tenant, storage and virtual clock) and a server for it.
    func makeStore(environment: String = "Sandbox") -> (StoreEngine, VirtualClock) {
        let clock = VirtualClock(start: Self.start)
        let engine = StoreEngine(
            tenantID: UUID().uuidString, catalog: Self.catalog, settings: StoreSettings(environment: environment),
            storage: InMemoryStorage(), clock: clock, signer: .ephemeral
        )
        return (engine, clock)
    }

    func buy(_ productID: String, in engine: StoreEngine, device: UUID? = Self.device, account: String = StoreDefaults.accountID) async throws -> TransactionRecord {
        try await engine.purchase(PurchaseRequest(productID: productID, accountID: account, bundleID: Self.app, deviceID: device))
    }

    func receipt(from engine: StoreEngine, device: UUID = Self.device, account: String = StoreDefaults.accountID) async throws -> String {
        try await engine.appReceipt(accountID: account, bundleID: Self.app, deviceID: device).base64EncodedString()
    }

    /// Posts a JSON body and decodes the answer, which must be HTTP 200.
    func post(
        _ body: String, to path: String = "/sandbox/verifyReceipt", server: StoreServer, transport: RouteTransport = .router
    ) async throws -> (VerifyReceiptResponse, String) {
        try await transport.test(server) { client in
            try await client.execute(uri: path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let text = String(buffer: response.body)
                return (try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(text.utf8)), text)
            }
        }
    }

    func verify(
        _ receiptData: String, password: String? = nil, excludeOld: Bool? = nil, path: String = "/sandbox/verifyReceipt",
        server: StoreServer, transport: RouteTransport = .router
    ) async throws -> VerifyReceiptResponse {
        let request = VerifyReceiptRequest(receiptData: receiptData, password: password, excludeOldTransactions: excludeOld)
        let body = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        return try await post(body, to: path, server: server, transport: transport).0
    }

    @Test(
        "A receipt from before a renewal answers 0 with its own in_app entries, and the renewal in latest_receipt_info and pending_renewal_info",
        arguments: RouteTransport.allCases
    )
    func subscriptionThatRenewed(transport: RouteTransport) async throws {
        let (engine, clock) = makeStore()
        let purchase = try await buy("monthly", in: engine)
        let premium = try await buy("premium", in: engine)
        let receiptData = try await receipt(from: engine)
        try await clock.advance(to: Self.monthsAfterStart(1).addingTimeInterval(60))
        let renewal = try #require(try await engine.transactions(TransactionQuery(originalID: purchase.id)).last)
        #expect(renewal.id != purchase.id)

        let response = try await verify(receiptData, server: StoreServer(engine: engine, port: 0), transport: transport)
        #expect(response.status == .valid)
        #expect(response.environment == "Sandbox")
        let receipt = try #require(response.receipt)
        #expect(receipt.bundleID == Self.app)
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.applicationVersion == "1")
        #expect(receipt.originalApplicationVersion == "1.0")
        #expect(receipt.receiptCreationDate == Self.start)
        #expect(receipt.requestDate == Self.monthsAfterStart(1).addingTimeInterval(60))
        // The receipt was made before the renewal: it lists the purchase, not the renewal.
        #expect(receipt.inApp.map(\.transactionID) == [String(purchase.id), String(premium.id)])
        let subscription = receipt.inApp[0]
        #expect(subscription.productID == "monthly")
        #expect(subscription.originalTransactionID == String(purchase.id))
        #expect(subscription.purchaseDate == Self.start)
        #expect(subscription.expiresDate == Self.monthsAfterStart(1))
        #expect(subscription.webOrderLineItemID == String(purchase.id))
        #expect(subscription.isTrialPeriod == "false")
        #expect(subscription.isInIntroOfferPeriod == "false")
        #expect(subscription.subscriptionGroupIdentifier == "G1")
        #expect(subscription.inAppOwnershipType == "PURCHASED")
        #expect(receipt.inApp[1].expiresDate == nil)
        #expect(receipt.inApp[1].subscriptionGroupIdentifier == nil)

        // latest_receipt_info: every purchase of the current receipt, newest first.
        let latest = try #require(response.latestReceiptInfo)
        #expect(latest.map(\.transactionID) == [String(renewal.id), String(premium.id), String(purchase.id)])
        #expect(latest[0].originalTransactionID == String(purchase.id))
        #expect(latest[0].purchaseDate == Self.monthsAfterStart(1))
        #expect(latest[0].expiresDate == Self.monthsAfterStart(2))

        let pending = try #require(response.pendingRenewalInfo)
        #expect(pending.count == 1)
        #expect(pending[0].originalTransactionID == String(purchase.id))
        #expect(pending[0].productID == "monthly")
        #expect(pending[0].autoRenewProductID == "monthly")
        #expect(pending[0].autoRenewStatus == "1")
        #expect(pending[0].isInBillingRetryPeriod == "0")
        #expect(pending[0].expirationIntent == nil)

        // latest_receipt is the store's current receipt for the device: it lists the renewal and verifies.
        let latestReceipt = try #require(response.latestReceipt.flatMap { Data(base64Encoded: $0) })
        #expect(latestReceipt == (try await engine.appReceipt(accountID: StoreDefaults.accountID, bundleID: Self.app, deviceID: Self.device)))
        let verifier = try ReceiptVerifier(rootCertificates: try engine.signer.certificateAuthority.rootCertificatesDER)
        let decoded = try await verifier.verify(latestReceipt, deviceIdentifier: Self.device).get()
        #expect(Set(decoded.inAppPurchases.map(\.transactionID)) == Set([purchase.id, premium.id, renewal.id].map { String($0) }))
    }

    @Test("Every scalar is a string and every date comes as Etc/GMT, _ms and America/Los_Angeles, as Apple writes them")
    func wireShape() async throws {
        let (engine, _) = makeStore()
        _ = try await buy("monthly", in: engine)
        let request = try JSONEncoder().encode(VerifyReceiptRequest(receiptData: try await receipt(from: engine)))
        let (_, text) = try await post(String(decoding: request, as: UTF8.self), server: StoreServer(engine: engine, port: 0))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["status"] as? Int == 0)
        let receipt = try #require(json["receipt"] as? [String: Any])
        #expect(receipt["receipt_creation_date"] as? String == "2026-01-15 12:00:00 Etc/GMT")
        #expect(receipt["receipt_creation_date_ms"] as? String == "1768478400000")
        #expect(receipt["receipt_creation_date_pst"] as? String == "2026-01-15 04:00:00 America/Los_Angeles")
        #expect(receipt["adam_id"] as? Int == 0)
        let inApp = try #require((receipt["in_app"] as? [[String: Any]])?.first)
        #expect(inApp["quantity"] as? String == "1")
        #expect(inApp["expires_date"] as? String == "2026-02-15 12:00:00 Etc/GMT")
        #expect(inApp["expires_date_pst"] as? String == "2026-02-15 04:00:00 America/Los_Angeles")
        #expect(inApp["is_trial_period"] as? String == "false")
        let pending = try #require((json["pending_renewal_info"] as? [[String: Any]])?.first)
        #expect(pending["auto_renew_status"] as? String == "1")
        #expect(json["latest_receipt"] is String)
    }

    @Test("exclude-old-transactions keeps only the latest transaction of each subscription in latest_receipt_info")
    func excludeOldTransactions() async throws {
        let (engine, clock) = makeStore()
        let purchase = try await buy("monthly", in: engine)
        let premium = try await buy("premium", in: engine)
        try await clock.advance(to: Self.monthsAfterStart(2).addingTimeInterval(60))
        let periods = try await engine.transactions(TransactionQuery(originalID: purchase.id))
        #expect(periods.count == 3)
        let server = StoreServer(engine: engine, port: 0)
        let receiptData = try await receipt(from: engine)

        let all = try await verify(receiptData, server: server)
        #expect(all.latestReceiptInfo?.map(\.transactionID) == [periods[2].id, periods[1].id, premium.id, periods[0].id].map { String($0) })
        let latestOnly = try await verify(receiptData, excludeOld: true, server: server)
        #expect(latestOnly.status == .valid)
        #expect(latestOnly.latestReceiptInfo?.map(\.transactionID) == [periods[2].id, premium.id].map { String($0) })
        #expect(latestOnly.receipt?.inApp.count == 4)
    }

    @Test("Garbage, a missing receipt-data and a receipt that is not PKCS#7 answer 21002", arguments: [
        #"{"receipt-data": "bm90IGEgcmVjZWlwdA=="}"#,
        #"{"receipt-data": "%%% not base64 %%%"}"#,
        #"{"receipt-data": ""}"#,
        #"{"password": "secret"}"#,
    ])
    func malformedReceiptData(body: String) async throws {
        let (engine, _) = makeStore()
        let (response, _) = try await post(body, server: StoreServer(engine: engine, port: 0))
        #expect(response.status == .malformedReceiptData)
        #expect(response.receipt == nil)
    }

    @Test("A body that is not JSON answers 21000")
    func unreadableJSON() async throws {
        let (engine, _) = makeStore()
        let (response, _) = try await post("receipt-data=abc", to: "/verifyReceipt", server: StoreServer(engine: engine, port: 0))
        #expect(response.status == .malformedRequest)
    }

    @Test("GET and the other methods answer HTTP 200 with status 21000 on both paths", arguments: ["/verifyReceipt", "/sandbox/verifyReceipt"])
    func notAPost(path: String) async throws {
        let (engine, _) = makeStore()
        try await StoreServer(engine: engine, port: 0).makeApplication().test(.router) { client in
            for method in [HTTPRequest.Method.get, .put, .delete] {
                try await client.execute(uri: path, method: method) { response in
                    #expect(response.status == .ok)
                    let body = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(response.body.readableBytesView))
                    #expect(body.status == .malformedRequest)
                }
            }
        }
    }

    @Test("A receipt signed by another authority answers 21003")
    func otherAuthority() async throws {
        let (engine, _) = makeStore()
        _ = try await buy("premium", in: engine)
        let genuine = try AppReceipt(receiptData: try await engine.appReceipt(accountID: StoreDefaults.accountID, bundleID: Self.app, deviceID: Self.device))
        let otherAuthority = try CertificateAuthority(issuedAt: CertificateAuthority.defaultValidity.lowerBound, subjectPrefix: "Elsewhere")
        let forged = try ReceiptSigner(certificateAuthority: otherAuthority).sign(genuine)
        let response = try await verify(forged.base64EncodedString(), server: StoreServer(engine: engine, port: 0))
        #expect(response.status == .notAuthenticated)
        #expect(response.receipt == nil)
    }

    @Test("A sandbox receipt on the production path answers 21007; a production receipt on the sandbox path answers 21008")
    func environments() async throws {
        let (sandbox, _) = makeStore(environment: "Sandbox")
        _ = try await buy("premium", in: sandbox)
        let sandboxReceipt = try await receipt(from: sandbox)
        let sandboxServer = StoreServer(engine: sandbox, port: 0)
        #expect(try await verify(sandboxReceipt, path: "/verifyReceipt", server: sandboxServer).status == .sandboxReceiptOnProduction)
        #expect(try await verify(sandboxReceipt, path: "/sandbox/verifyReceipt", server: sandboxServer).status == .valid)

        let (production, _) = makeStore(environment: "Production")
        _ = try await buy("premium", in: production)
        let productionReceipt = try await receipt(from: production)
        let productionServer = StoreServer(engine: production, port: 0)
        #expect(try await verify(productionReceipt, path: "/sandbox/verifyReceipt", server: productionServer).status == .productionReceiptOnSandbox)
        let valid = try await verify(productionReceipt, path: "/verifyReceipt", server: productionServer)
        #expect(valid.status == .valid)
        #expect(valid.environment == "Production")
        #expect(valid.receipt?.receiptType == "Production")
    }

    @Test("With a shared secret configured, a wrong or missing password answers 21004; apps without one accept any password")
    func sharedSecret() async throws {
        let (engine, _) = makeStore()
        _ = try await buy("monthly", in: engine)
        let receiptData = try await receipt(from: engine)
        var server = StoreServer(engine: engine, port: 0)
        #expect(try await verify(receiptData, password: "anything", server: server).status == .valid)

        server.sharedSecrets = [Self.app: "0123456789abcdef"]
        #expect(try await verify(receiptData, password: "fedcba9876543210", server: server).status == .sharedSecretMismatch)
        #expect(try await verify(receiptData, server: server).status == .sharedSecretMismatch)
        #expect(try await verify(receiptData, password: "0123456789abcdef", server: server).status == .valid)

        server.sharedSecrets = ["com.example.other": "0123456789abcdef"]
        #expect(try await verify(receiptData, password: "wrong", server: server).status == .valid)
    }

    @Test("A receipt whose purchases the store no longer has answers 21010")
    func deletedAccount() async throws {
        let (engine, _) = makeStore()
        _ = try await buy("premium", in: engine)
        let receiptData = try await receipt(from: engine)
        try await engine.clearTransactions()
        let response = try await verify(receiptData, server: StoreServer(engine: engine, port: 0))
        #expect(response.status == .accountNotFound)
    }

    @Test("A receipt with no purchases answers 0 with an empty in_app and no latest information")
    func emptyReceipt() async throws {
        let (engine, _) = makeStore()
        let response = try await verify(try await receipt(from: engine), server: StoreServer(engine: engine, port: 0))
        #expect(response.status == .valid)
        #expect(response.receipt?.inApp == [])
        #expect(response.latestReceipt == nil)
        #expect(response.latestReceiptInfo == nil)
        #expect(response.pendingRenewalInfo == nil)
    }

    @Test("A receipt of a device the store never saw buy gets a latest_receipt still bound to that device")
    func unknownDevice() async throws {
        let (engine, clock) = makeStore()
        let purchase = try await buy("monthly", in: engine, device: nil)
        let otherDevice = UUID(uuidString: "0E0F3D4B-29B1-4F2A-9C8E-5D7A0B1C2D3E")!
        let receiptData = try await receipt(from: engine, device: otherDevice)
        try await clock.advance(to: Self.monthsAfterStart(1).addingTimeInterval(60))

        let response = try await verify(receiptData, server: StoreServer(engine: engine, port: 0))
        #expect(response.status == .valid)
        #expect(response.latestReceiptInfo?.count == 2)
        #expect(response.latestReceiptInfo?.last?.transactionID == String(purchase.id))
        let latestReceipt = try #require(response.latestReceipt.flatMap { Data(base64Encoded: $0) })
        let verifier = try ReceiptVerifier(rootCertificates: try engine.signer.certificateAuthority.rootCertificatesDER)
        let decoded = try await verifier.verify(latestReceipt, deviceIdentifier: otherDevice).get()
        #expect(decoded.inAppPurchases.count == 2)
    }

    @Test("A refund shows as cancellation_date and cancellation_reason; billing retry and its grace period show in pending_renewal_info")
    func refundAndBillingRetry() async throws {
        let (engine, _) = makeStore()
        let purchase = try await buy("monthly", in: engine)
        _ = try await engine.refund(transactionID: purchase.id, reason: .refundedDueToIssue)
        let response = try await verify(try await receipt(from: engine), server: StoreServer(engine: engine, port: 0))
        let refunded = try #require(response.latestReceiptInfo?.first)
        #expect(refunded.cancellationDate == Self.start)
        #expect(refunded.cancellationReason == "1")
        #expect(response.receipt?.inApp.first?.cancellationReason == "1")

        let (retrying, retryClock) = makeStore()
        try await retrying.updateSettings { $0.renewalBillingIssuesEnabled = true; $0.billingGracePeriodEnabled = true }
        let subscription = try await buy("monthly", in: retrying)
        try await retryClock.advance(to: Self.monthsAfterStart(1).addingTimeInterval(60))
        let pending = try #require(try await verify(try await receipt(from: retrying), server: StoreServer(engine: retrying, port: 0)).pendingRenewalInfo?.first)
        #expect(pending.originalTransactionID == String(subscription.id))
        #expect(pending.isInBillingRetryPeriod == "1")
        #expect(pending.gracePeriodExpiresDate != nil)
    }

    @Test("At the bare verifyReceipt paths a receipt reaches the tenant that issued it: the same transaction ID is each tenant's own purchase; a receipt naming no tenant is the server's", arguments: RouteTransport.allCases)
    func receiptsReachTheirTenant(transport: RouteTransport) async throws {
        let storage = InMemoryStorage()
        @Sendable func engine(_ name: String) -> StoreEngine {
            StoreEngine(tenantID: name, catalog: Self.catalog, storage: storage, clock: VirtualClock(start: Self.start), signer: .ephemeral)
        }
        let main = engine("default")
        var server = StoreServer(engine: main, port: 0)
        server.tenants = TenantDirectory(serverTenant: "default") { name, _ in
            TenantDirectory.Tenant(engine: name == "default" ? main : engine(name))
        }
        let alpha = try await server.tenants!.tenant("alpha").engine
        let beta = try await server.tenants!.tenant("beta").engine
        #expect(try await buy("premium", in: alpha).id == 2_000_000_000_000_001)
        #expect(try await buy("coins", in: beta).id == 2_000_000_000_000_001)
        let alphaReceipt = try await receipt(from: alpha), betaReceipt = try await receipt(from: beta)
        #expect(try AppReceipt(receiptData: try #require(Data(base64Encoded: alphaReceipt))).issuingStore == "alpha")

        for path in ["/verifyReceipt", "/sandbox/verifyReceipt"] {
            let body = #"{"receipt-data": "\#(alphaReceipt)"}"#
            let (answer, _) = try await post(body, to: path, server: server, transport: transport)
            if path == "/verifyReceipt" {
                #expect(answer.status == .sandboxReceiptOnProduction, "alpha's production verifyReceipt, as Apple answers a sandbox receipt")
            } else {
                #expect(answer.status == .valid)
                #expect(answer.receipt?.inApp.map(\.productID) == ["premium"])
            }
        }
        let (betaAnswer, _) = try await post(#"{"receipt-data": "\#(betaReceipt)"}"#, server: server, transport: transport)
        #expect(betaAnswer.status == .valid)
        #expect(betaAnswer.receipt?.inApp.map(\.productID) == ["coins"])

        // A receipt that names no store (an older one) is verified by the server's own store, which did not issue it.
        var unnamed = try AppReceipt(receiptData: try #require(Data(base64Encoded: alphaReceipt)))
        unnamed.issuingStore = nil
        let signed = try ReceiptSigner(certificateAuthority: try main.signer.certificateAuthority).sign(unnamed)
        let (unnamedAnswer, _) = try await post(#"{"receipt-data": "\#(signed.base64EncodedString())"}"#, server: server, transport: transport)
        // Each store here signs with its own authority, so alpha would find the signature untrusted (21003); the
        // server's store trusts it and finds no account of its own behind alpha's opaque value.
        #expect(unnamedAnswer.status == .accountNotFound)
    }

    @Test("With tenants, the bare paths answer a body that is not JSON, a receipt that does not read and a body over 4 MiB as a lone store does: 21000, 21002, 21000", arguments: RouteTransport.allCases)
    func unreadableBodiesWithTenants(transport: RouteTransport) async throws {
        let (engine, _) = makeStore()
        var server = StoreServer(engine: engine, port: 0)
        server.tenants = TenantDirectory(serverTenant: "default") { _, _ in TenantDirectory.Tenant(engine: engine) }
        let oversized = #"{"receipt-data": ""# + String(repeating: "A", count: VerifyReceiptService.maximumRequestSize) + #""}"#
        let cases: [(body: String, status: VerifyReceiptStatus)] = [
            ("receipt-data=abc", .malformedRequest),
            (#"{"receipt-data": "bm90IGEgcmVjZWlwdA=="}"#, .malformedReceiptData),
            (oversized, .malformedRequest),
        ]
        for path in ["/verifyReceipt", "/sandbox/verifyReceipt"] {
            for (body, status) in cases {
                let (answer, _) = try await post(body, to: path, server: server, transport: transport)
                #expect(answer.status == status, "\(path), a body of \(body.utf8.count) bytes")
            }
        }
    }
}
