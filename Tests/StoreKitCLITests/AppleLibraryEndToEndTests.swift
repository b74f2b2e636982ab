import Foundation
import Testing
import TestProcesses

/// What the store issues through its commands, checked by code nobody here wrote: Apple's
/// `app-store-server-library` (Python) and `openssl cms`.
@Suite("Apple's library accepts what the store issues", .limitsChildProcesses)
struct AppleLibraryEndToEndTests {
    let dataDirectory = temporaryDataDirectory()
    let bundleID = "com.example.demo"
    let pythonScripts = repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python")

    func python(_ script: String, _ arguments: [String]) async throws -> [String: Any] {
        let result = try await tool("python3", [pythonScripts.appendingPathComponent(script).path] + arguments)
        #expect(result.status != 3, "Apple's library is missing: pip install app-store-server-library==3.1.2")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)\(result.errorOutput)")
    }

    /// Exports the store's JWS root as DER, as a backend would to configure Apple's verifier.
    func exportJWSRoot() async throws -> URL {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let root = dataDirectory.appendingPathComponent("root.cer")
        let run = try await storekit(["ca", "export", "--data-dir", dataDirectory.path, "--root", "jws", "--der", "--out", root.path])
        #expect(run.status == 0, "\(run.errorOutput)")
        return root
    }

    func buy(_ productID: String) async throws -> (id: String, token: String) {
        let run = try await storekit(["purchase", productID, "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--bundle-id", bundleID, "--json"])
        #expect(run.status == 0, "\(run.errorOutput)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return (try #require(json["transactionId"] as? String), try #require(json["signedTransaction"] as? String))
    }

    @Test("storekit redeem and storekit notifications list: the code's transaction and the OFFER_REDEEMED notification verify with Apple's library")
    func redeemedCodeAndNotificationVerify() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let root = try await exportJWSRoot()
        let redeemed = try await storekit(["redeem", "Launch code", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--bundle-id", bundleID, "--json"])
        #expect(redeemed.status == 0, "\(redeemed.errorOutput)")
        let transaction = try #require(try JSONSerialization.jsonObject(with: Data(redeemed.output.utf8)) as? [String: Any])
        #expect(transaction["productId"] as? String == "com.example.demo.plus.monthly")
        #expect(transaction["offerType"] as? Int == 3)
        #expect(transaction["offerIdentifier"] as? String == "Launch code")
        #expect(transaction["amountCharged"] as? String == "0")

        let again = try await storekit(["redeem", "Launch code", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--bundle-id", bundleID])
        #expect(again.status != 0)
        #expect(again.errorOutput.contains("new and expired customers"), "\(again.errorOutput)")
        let unknown = try await storekit(["redeem", "NOPE", "--config", demoConfiguration, "--data-dir", dataDirectory.path])
        #expect(unknown.errorOutput.contains("Launch code"), "the error lists the codes there are: \(unknown.errorOutput)")

        let listed = try await storekit(["notifications", "list", "--data-dir", dataDirectory.path, "--signed"])
        #expect(listed.status == 0, "\(listed.errorOutput)")
        let notifications = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(notifications.map { $0["notificationType"] as? String } == ["OFFER_REDEEMED"])
        #expect(notifications.first?["subtype"] as? String == "INITIAL_BUY")
        let tokenFile = dataDirectory.appendingPathComponent("notification.jws")
        try Data(try #require(notifications.first?["signedPayload"] as? String).utf8).write(to: tokenFile)
        let verified = try await python("verify_signed_data.py", ["notification", tokenFile.path, "--root", root.path, "--bundle-id", bundleID])
        #expect(verified["status"] as? String == "OK", "\(verified)")
        let payload = verified["payload"] as? [String: Any]
        #expect(payload?["rawNotificationType"] as? String == "OFFER_REDEEMED")
        #expect((payload?["data"] as? [String: Any])?["rawStatus"] as? Int == 1)

        let signedTransaction = try #require((payload?["data"] as? [String: Any])?["signedTransactionInfo"] as? String)
        try Data(signedTransaction.utf8).write(to: tokenFile)
        let inner = try await python("verify_signed_data.py", ["transaction", tokenFile.path, "--root", root.path, "--bundle-id", bundleID])
        let innerPayload = inner["payload"] as? [String: Any]
        #expect(innerPayload?["rawOfferType"] as? Int == 3)
        #expect(innerPayload?["offerIdentifier"] as? String == "Launch code")
        #expect(innerPayload?["rawOfferDiscountType"] as? String == "FREE_TRIAL")
        #expect(innerPayload?["offerPeriod"] as? String == "P1M")
    }

    @Test("Apple's AppStoreServerAPIClient, pointed at storekit serve, gets transaction info and subscription statuses that verify, by a transaction's ID and by the appTransactionId; 4040010, 4000048 and 401 as Apple answers")
    func serverAPIClient() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let root = try await exportJWSRoot()
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"
        let created = try await storekit(["keys", "create", "--issuer", issuer, "--out", dataDirectory.path, "--data-dir", dataDirectory.path])
        #expect(created.status == 0, "\(created.errorOutput)")
        let keyID = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(keyID.count == 10)
        let keyFile = dataDirectory.appendingPathComponent("SubscriptionKey_\(keyID).p8")
        #expect(try await storekit(["keys", "list", "--data-dir", dataDirectory.path]).output.contains(keyID))
        let (subscriptionID, _) = try await buy("com.example.demo.plus.monthly")
        var coins: [String] = []
        for _ in 0..<21 { coins.append(try await buy("com.example.demo.coins.100").id) }
        #expect(try await storekit(["tx", "refund", coins[0], "--data-dir", dataDirectory.path]).status == 0)

        let server = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0",
        ])
        defer { server.terminate() }
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let baseURL = try #require(line.split(separator: " ").last.map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines))

        let result = try await python("server_api_client.py", [
            "--base-url", baseURL, "--key-file", keyFile.path, "--key-id", keyID, "--issuer", issuer,
            "--bundle-id", bundleID, "--root", root.path, "--transaction-id", subscriptionID,
            "--subscription-product", "com.example.demo.plus.monthly",
            "--order-id", "M" + String(UInt64(coins[1])!, radix: 36, uppercase: true), "--consumable-id", coins[2],
        ])
        let info = result["transactionInfo"] as? [String: Any]
        #expect(info?["transactionId"] as? String == subscriptionID, "\(result)")
        let statuses = result["statuses"] as? [String: Any]
        #expect(statuses?["bundleId"] as? String == bundleID)
        #expect(statuses?["environment"] as? String == "Sandbox")
        let groups = statuses?["data"] as? [[String: Any]] ?? []
        #expect(groups.count == 1)
        let last = (groups.first?["lastTransactions"] as? [[String: Any]])?.first
        #expect(last?["status"] as? Int == 1)
        #expect(last?["originalTransactionId"] as? String == subscriptionID)
        #expect((last?["renewalInfo"] as? [String: Any])?["autoRenewProductId"] as? String == "com.example.demo.plus.monthly")
        // History: 22 transactions on two pages of 20, the revision echoed back as Apple's client does.
        // Version 1 leaves out the consumable the server finished (coins[2]), as Apple's does; version 2 lists it.
        let v1 = result["historyv1"] as? [String: Any], v2 = result["historyv2"] as? [String: Any]
        #expect(v1?["transactionIds"] as? [String] == [subscriptionID] + coins.filter { $0 != coins[2] })
        #expect(v2?["transactionIds"] as? [String] == [subscriptionID] + coins)
        #expect(v1?["pages"] as? Int == 2 && v2?["pages"] as? Int == 2)
        // The revoked filter as Apple's Python client sends it, True and False.
        #expect(result["revokedTrue"] as? [String] == [coins[0]])
        #expect(result["revokedFalse"] as? [String] == [subscriptionID] + coins.dropFirst().prefix(19))
        // Each window [one purchase's date, the next's) holds exactly that purchase, at the JWS's millisecond.
        let windows = result["dateWindows"] as? [String: Any]
        #expect((windows?["checked"] as? Int ?? 0) >= 15, "\(String(describing: windows))")
        #expect(windows?["exact"] as? Int == windows?["checked"] as? Int, "\(String(describing: windows))")
        #expect(result["consumablesNewestFirst"] as? [String] == Array(coins.reversed().prefix(20)))
        #expect(result["refunds"] as? [String] == [coins[0]])
        #expect(result["notificationHistory"] as? [String] == ["SUBSCRIBED"] + Array(repeating: "ONE_TIME_CHARGE", count: 21) + ["REFUND", "RENEWAL_EXTENDED", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION"])
        // The mass extension's RENEWAL_EXTENSION/SUMMARY, verified and parsed by Apple's library.
        let summary = try #require(result["summary"] as? [String: Any], "\(result)")
        #expect(summary["subtype"] as? String == "SUMMARY")
        #expect(summary["requestIdentifier"] as? String == "mass-1")
        #expect(summary["environment"] as? String == "Sandbox")
        #expect(summary["succeededCount"] as? Int == 1 && summary["failedCount"] as? Int == 0, "\(summary)")
        #expect((summary["appAppleId"] as? Int ?? 0) >= 1_000_000_000)
        #expect(summary["productId"] as? String != nil && summary["bundleId"] as? String != nil)
        let extensionResult = try #require(result["extension"] as? [String: Any])
        #expect(extensionResult["success"] as? Bool == true)
        #expect(extensionResult["originalTransactionId"] as? String == subscriptionID)
        let before = try #require(extensionResult["before"] as? Int)
        #expect(extensionResult["after"] as? Int == before + 30 * 86_400_000)
        #expect(extensionResult["effectiveDate"] as? Int == before + 30 * 86_400_000)
        #expect(result["tooLongExtension"] as? Int == 4_000_009)
        #expect(result["appAccountToken"] as? String == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(result["badAppAccountToken"] as? Int == 4_000_183)
        #expect(result["testNotificationWithoutURL"] as? Int == 4_040_007)
        let mass = result["massExtension"] as? [String: Any]
        #expect(mass?["complete"] as? Bool == true)
        #expect(mass?["succeededCount"] as? Int == 1)
        #expect(mass?["failedCount"] as? Int == 0)
        #expect(result["unknownMassExtension"] as? Int == 4_040_009)
        let appTransaction = result["appTransaction"] as? [String: Any]
        #expect(appTransaction?["bundleId"] as? String == bundleID)
        #expect(appTransaction?["receiptType"] as? String == "Sandbox")
        #expect((appTransaction?["appTransactionId"] as? String)?.count == 19)
        // Named by that appTransactionId, the customer's history (both versions), statuses, refunds and app
        // transaction are the ones its transaction's ID gets; Get Transaction Info refuses it with 4000048.
        let byApp = try #require(result["byAppTransactionId"] as? [String: Any], "\(result)")
        for version in ["v1", "v2"] {
            let pages = byApp["history\(version)"] as? [[String]] ?? []
            #expect(pages.count == 2 && pages[0] == pages[1] && pages[0].first == subscriptionID, "\(version): \(pages)")
        }
        #expect(byApp["statuses"] as? [String] == [subscriptionID])
        #expect(byApp["renewalInfoAppTransactionIds"] as? [String] == [try #require(appTransaction?["appTransactionId"] as? String)])
        #expect(byApp["refunds"] as? [String] == [coins[0]])
        #expect(byApp["appTransactionId"] as? String == appTransaction?["appTransactionId"] as? String)
        let refused = byApp["transactionInfo"] as? [String: Any]
        #expect(refused?["httpStatus"] as? Int == 400, "\(String(describing: refused))")
        #expect(refused?["errorCode"] as? Int == 4_000_048)
        #expect(refused?["apiError"] as? String == "APP_TRANSACTION_ID_NOT_SUPPORTED_ERROR")
        #expect(result["consumption"] as? String == "accepted")
        #expect((result["order"] as? [String: Any])?["status"] as? Int == 0)
        #expect((result["order"] as? [String: Any])?["transactionIds"] as? [String] == [coins[1]])
        #expect(result["unknownOrder"] as? Int == 1)
        #expect(result["finished"] as? String == coins[2])
        #expect(result["consumptionWithoutConsent"] as? Int == 4_000_035)
        #expect((result["unknownTransaction"] as? [String: Any])?["errorCode"] as? Int == 4_040_010)
        #expect((result["unknownTransaction"] as? [String: Any])?["httpStatus"] as? Int == 404)
        #expect((result["unknownKey"] as? [String: Any])?["httpStatus"] as? Int == 401)
        #expect((result["otherApp"] as? [String: Any])?["httpStatus"] as? Int == 401, "a token for another app, as Apple answers: \(String(describing: result["otherApp"]))")

        // A revoked key's tokens are refused by a server started afterwards.
        #expect(try await storekit(["keys", "revoke", keyID, "--data-dir", dataDirectory.path]).status == 0)
        #expect(try await storekit(["keys", "list", "--data-dir", dataDirectory.path]).output.contains("revoked"))
    }

    @Test("SignedDataVerifier accepts a signed transaction of every product type, and rejects one changed byte")
    func signedTransactionsVerify() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let root = try await exportJWSRoot()
        let products = [
            ("com.example.demo.coins.100", "Consumable"), ("com.example.demo.premium", "Non-Consumable"),
            ("com.example.demo.season.pass", "Non-Renewing Subscription"),
            ("com.example.demo.plus.monthly", "Auto-Renewable Subscription"),
        ]
        for (productID, type) in products {
            let (id, token) = try await buy(productID)
            let tokenFile = dataDirectory.appendingPathComponent("\(id).jws")
            try Data(token.utf8).write(to: tokenFile)
            let verified = try await python("verify_signed_data.py", ["transaction", tokenFile.path, "--root", root.path, "--bundle-id", bundleID])
            #expect(verified["status"] as? String == "OK", "\(verified)")
            let payload = verified["payload"] as? [String: Any]
            #expect(payload?["transactionId"] as? String == id)
            #expect(payload?["productId"] as? String == productID)
            #expect(payload?["type"] as? String == type)
            if type == "Auto-Renewable Subscription" {
                #expect(payload?["expiresDate"] as? Int != nil)
                #expect(payload?["subscriptionGroupIdentifier"] as? String != nil)
            }

            var tampered = Array(token.utf8)
            let index = tampered.count / 2
            tampered[index] = tampered[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            try Data(tampered).write(to: tokenFile)
            let rejected = try await python("verify_signed_data.py", ["transaction", tokenFile.path, "--root", root.path, "--bundle-id", bundleID])
            #expect(rejected["status"] as? String != "OK")
        }
    }

    @Test("ReceiptUtility reads the store's receipt and openssl cms verifies it against the exported root")
    func receiptVerifies() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (id, _) = try await buy("com.example.demo.premium")
        let receipt = dataDirectory.appendingPathComponent("receipt.der")
        let written = try await storekit(["receipt", "write", "--data-dir", dataDirectory.path, "--bundle-id", bundleID, "--out", receipt.path])
        #expect(written.status == 0, "\(written.errorOutput)")

        let extracted = try await python("extract_transaction_id.py", [receipt.path])
        #expect(extracted["transactionId"] as? String == id, "\(extracted)")

        let rootPEM = dataDirectory.appendingPathComponent("receipt-root.pem")
        #expect(try await storekit(["ca", "export", "--data-dir", dataDirectory.path, "--root", "receipt", "--out", rootPEM.path]).status == 0)
        #expect(try await openssl(["cms", "-verify", "-inform", "DER", "-in", receipt.path, "-CAfile", rootPEM.path, "-purpose", "any", "-binary", "-out", "/dev/null"]) == 0)

        var bytes = try Data(contentsOf: receipt)
        bytes[bytes.count - 10] ^= 0x01
        try bytes.write(to: receipt)
        #expect(try await openssl(["cms", "-verify", "-inform", "DER", "-in", receipt.path, "-CAfile", rootPEM.path, "-purpose", "any", "-binary", "-out", "/dev/null"]) != 0)
    }

    func openssl(_ arguments: [String]) async throws -> Int32 {
        try await tool("openssl", arguments).status
    }

    @Test("A store signing as Production: Apple's verifier in Production mode, given the app's Apple ID from the .storekit file, accepts its transactions, renewal info, app transaction and notifications; history and statuses carry the ID")
    func productionVerifies() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let root = try await exportJWSRoot()
        // The demo catalog as App Store Connect syncs it: with the app's Apple ID.
        let appAppleID = "6756204776"
        var catalog = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: demoConfiguration))) as? [String: Any])
        var settings = catalog["settings"] as? [String: Any] ?? [:]
        settings["_applicationInternalID"] = appAppleID
        catalog["settings"] = settings
        let config = dataDirectory.appendingPathComponent("Synced.storekit")
        try JSONSerialization.data(withJSONObject: catalog).write(to: config)

        let switched = try await storekit(["settings", "set", "--environment", "Production", "--config", config.path, "--data-dir", dataDirectory.path])
        #expect(switched.status == 0, "\(switched.errorOutput)")
        #expect(switched.output.contains("Production"), "\(switched.output)")
        let refused = try await storekit(["settings", "set", "--environment", "Staging", "--data-dir", dataDirectory.path])
        #expect(refused.errorOutput.contains("Unknown environment \"Staging\". Use Sandbox, Production, Xcode."), "\(refused.errorOutput)")

        let bought = try await storekit(["purchase", "com.example.demo.plus.monthly", "--config", config.path, "--data-dir", dataDirectory.path, "--bundle-id", bundleID, "--json"])
        #expect(bought.status == 0, "\(bought.errorOutput)")
        let subscriptionID = try #require((try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any])?["transactionId"] as? String)

        // Apple's API client against the server, verifying everything in Production mode.
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"
        let created = try await storekit(["keys", "create", "--issuer", issuer, "--out", dataDirectory.path, "--data-dir", dataDirectory.path])
        let keyID = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", config.path, "--data-dir", dataDirectory.path, "--port", "0",
        ])
        defer { server.terminate() }
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let baseURL = try #require(line.split(separator: " ").last.map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines))
        let result = try await python("production_client.py", [
            "--base-url", baseURL, "--key-file", dataDirectory.appendingPathComponent("SubscriptionKey_\(keyID).p8").path,
            "--key-id", keyID, "--issuer", issuer, "--bundle-id", bundleID, "--app-apple-id", appAppleID, "--root", root.path,
            "--transaction-id", subscriptionID,
        ])
        #expect((result["transaction"] as? [String: Any])?["environment"] as? String == "Production", "\(result)")
        let statuses = result["statuses"] as? [String: Any]
        #expect(statuses?["appAppleId"] as? Int == Int(appAppleID))
        #expect((statuses?["renewalInfo"] as? [String: Any])?["environment"] as? String == "Production", "\(result)")
        let history = result["history"] as? [String: Any]
        #expect(history?["appAppleId"] as? Int == Int(appAppleID))
        #expect(history?["transactions"] as? [String] == [subscriptionID], "\(result)")
        let app = result["appTransaction"] as? [String: Any]
        #expect(app?["appAppleId"] as? Int == Int(appAppleID), "\(result)")
        #expect(app?["receiptType"] as? String == "Production")
        #expect(app?["versionExternalIdentifier"] as? Int == 1)
        #expect(app?["applicationVersion"] as? String == "1")

        // The SUBSCRIBED notification the server signs: accepted with the app's Apple ID, refused with another, as
        // Apple's checks go.
        let listed = try await storekit(["notifications", "list", "--server", baseURL, "--signed"])
        let notifications = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], "\(listed.errorOutput)")
        let tokenFile = dataDirectory.appendingPathComponent("notification.jws")
        try Data(try #require(notifications.first?["signedPayload"] as? String).utf8).write(to: tokenFile)
        let common = ["notification", tokenFile.path, "--root", root.path, "--bundle-id", bundleID, "--environment", "PRODUCTION"]
        let accepted = try await python("verify_signed_data.py", common + ["--app-apple-id", appAppleID])
        #expect(accepted["status"] as? String == "OK", "\(accepted)")
        let data = (accepted["payload"] as? [String: Any])?["data"] as? [String: Any]
        #expect(data?["appAppleId"] as? Int == Int(appAppleID))
        #expect(data?["rawEnvironment"] as? String == "Production")
        #expect(data?["bundleVersion"] as? String == "1")
        let otherApp = try await python("verify_signed_data.py", common + ["--app-apple-id", "1234567890"])
        #expect(otherApp["status"] as? String == "INVALID_APP_IDENTIFIER", "\(otherApp)")
    }

    @Test("storekit family rescind-consent: the app's server gets RESCIND_CONSENT with appData, which Apple's library verifies, and the child's app transaction inside it verifies too")
    func rescindConsent() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let root = try await exportJWSRoot()
        let rescinded = try await storekit(["family", "rescind-consent", "kid", "--bundle-id", bundleID, "--data-dir", dataDirectory.path, "--json"])
        #expect(rescinded.status == 0, "\(rescinded.errorOutput)")
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(rescinded.output.utf8)) as? [String: Any])
        #expect(entry["notificationType"] as? String == "RESCIND_CONSENT")
        let empty = try await storekit(["family", "rescind-consent", "", "--data-dir", dataDirectory.path])
        #expect(empty.errorOutput.contains("The account is empty"), "\(empty.errorOutput)")

        let listed = try await storekit(["notifications", "list", "--data-dir", dataDirectory.path, "--signed"])
        let notifications = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], "\(listed.errorOutput)")
        let tokenFile = dataDirectory.appendingPathComponent("notification.jws")
        try Data(try #require(notifications.first?["signedPayload"] as? String).utf8).write(to: tokenFile)
        let verified = try await python("verify_signed_data.py", ["notification", tokenFile.path, "--root", root.path, "--bundle-id", bundleID])
        #expect(verified["status"] as? String == "OK", "\(verified)")
        let payload = verified["payload"] as? [String: Any]
        #expect(payload?["rawNotificationType"] as? String == "RESCIND_CONSENT")
        #expect(payload?["data"] == nil || payload?["data"] is NSNull)
        let appData = try #require(payload?["appData"] as? [String: Any], "\(verified)")
        #expect(appData["bundleId"] as? String == bundleID)
        #expect(appData["rawEnvironment"] as? String == "Sandbox")

        try Data(try #require(appData["signedAppTransactionInfo"] as? String).utf8).write(to: tokenFile)
        let app = try await python("verify_signed_data.py", ["app-transaction", tokenFile.path, "--root", root.path, "--bundle-id", bundleID])
        #expect(app["status"] as? String == "OK", "\(app)")
        #expect(((app["payload"] as? [String: Any])?["appTransactionId"] as? String)?.isEmpty == false)
    }

    @Test("storekit external-purchase token: a custom link token as the app gets it; its CREATED notification verifies with Apple's library, and the clock brings UNREPORTED")
    func externalPurchaseToken() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let root = try await exportJWSRoot()
        let made = try await storekit(["external-purchase", "token", "ana", "--type", "SERVICES", "--bundle-id", bundleID, "--data-dir", dataDirectory.path, "--json"])
        #expect(made.status == 0, "\(made.errorOutput)")
        let token = try #require(try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any], "\(made.output)")
        let id = try #require(token["externalPurchaseId"] as? String)
        #expect(id.hasPrefix("SANDBOX_") && token["tokenType"] as? String == "SERVICES")
        let again = try await storekit(["external-purchase", "token", "ana", "--type", "SERVICES", "--bundle-id", bundleID, "--data-dir", dataDirectory.path])
        #expect(again.output.hasPrefix(id), "the active token again: \(again.output)")
        let bad = try await storekit(["external-purchase", "token", "ana", "--type", "LINK_OUT", "--data-dir", dataDirectory.path])
        #expect(bad.status != 0 && bad.errorOutput.contains("ACQUISITION or SERVICES"), "\(bad.errorOutput)")

        let moved = try await storekit(["clock", "advance", "2h", "--config", demoConfiguration, "--data-dir", dataDirectory.path])
        #expect(moved.status == 0, "\(moved.errorOutput)")
        let listed = try await storekit(["notifications", "list", "--data-dir", dataDirectory.path, "--signed"])
        let notifications = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], "\(listed.errorOutput)")
        #expect(notifications.map { "\($0["notificationType"] as? String ?? "")/\($0["subtype"] as? String ?? "")" } == [
            "EXTERNAL_PURCHASE_TOKEN/CREATED", "EXTERNAL_PURCHASE_TOKEN/UNREPORTED",
        ])
        let tokenFile = dataDirectory.appendingPathComponent("notification.jws")
        for notification in notifications {
            try Data(try #require(notification["signedPayload"] as? String).utf8).write(to: tokenFile)
            let verified = try await python("verify_signed_data.py", ["notification", tokenFile.path, "--root", root.path, "--bundle-id", bundleID])
            #expect(verified["status"] as? String == "OK", "\(verified)")
            let payload = verified["payload"] as? [String: Any]
            #expect((payload?["externalPurchaseToken"] as? [String: Any])?["externalPurchaseId"] as? String == id)
        }
    }
}
