import Foundation
import Testing

@testable import AppStoreFormats

/// What the libFuzzer targets `FuzzReceipt` and `FuzzJWS` (in `Fuzz/`) do with an input, run here over their seeds
/// and simple mutations of them, so every test run exercises those inputs without libFuzzer. Inputs that fuzzing
/// found to crash are regression tests below, each fed to the same API.
@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    static let receiptVerifier: ReceiptVerifier = try! ReceiptVerifier(
        rootCertificates: TestAuthority.shared.rootCertificatesDER + appleRoots)
    static let jwsVerifier: JWSVerifier = try! JWSVerifier(rootCertificates: TestAuthority.shared.rootCertificatesDER + appleRoots)
    static var appleRoots: [Data] {
        ["cert-AppleRootCA-G3.cer", "cert-AppleIncRootCertificate.cer", "cert-StoreKitTestCertificate.cer"].compactMap { try? Fixtures.vector($0) }
    }

    /// The input, its prefixes and copies with one byte changed at evenly spaced places.
    static func mutations(of data: Data) -> [Data] {
        let bytes = Array(data)
        var variants = [data, Data(), Data(bytes.prefix(1)), Data(bytes.prefix(bytes.count / 2)), Data(bytes.dropLast())]
        for step in 1...16 where !bytes.isEmpty {
            var changed = bytes
            let index = bytes.count * step / 17
            changed[index] = changed[index] &+ 0x41
            variants.append(Data(changed))
        }
        return variants
    }

    /// What `FuzzReceipt` does with an input.
    static func exerciseReceipt(_ data: Data) async {
        if let signed = try? SignedReceipt(data: data) { _ = try? signed.decodeReceipt() }
        _ = try? AppReceipt(receiptData: data)
        _ = try? AppReceipt(payload: data)
        if let text = String(data: data, encoding: .utf8) { _ = try? LegacyTransactionReceipt(text) }
        _ = await receiptVerifier.verify(data, deviceIdentifierBytes: Data(repeating: 1, count: 16))
    }

    /// What `FuzzJWS` does with an input.
    static func exerciseJWS(_ token: String) async {
        if let jws = try? CompactJWS(token) {
            _ = jws.readableHeader
            _ = (try? jws.payloadJSON)?.expandingSignedFields()
            _ = try? jws.certificates
            _ = try? jws.decodePayload(as: JWSTransactionDecodedPayload.self)
        }
        _ = await jwsVerifier.verifyTransaction(token)
        _ = await jwsVerifier.verifyRenewalInfo(token)
        _ = await jwsVerifier.verifyAppTransaction(token)
        _ = await jwsVerifier.verifyNotification(token)
    }

    static func vectors(matching suffix: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: Fixtures.vectors, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix(suffix) }.sorted { $0.path < $1.path }
    }

    @Test("Receipts — Apple's, Xcode's, ours, as DER and base64 — and mutations of them are refused or read, never a trap")
    func receiptSeeds() async throws {
        let signer = ReceiptSigner(certificateAuthority: TestAuthority.shared)
        let ours = AppReceipt(
            bundleID: "com.example.app", appVersion: "1.0", opaqueValue: Data(repeating: 7, count: 16), creationDate: Fixtures.now,
            inAppPurchases: [InAppPurchaseReceipt(productID: "coins", transactionID: "1", purchaseDate: Fixtures.now, productType: .consumable)])
        var seeds = [try signer.sign(ours), ours.derEncoded]
        for url in try Self.vectors(matching: ".b64") {
            let text = try String(contentsOf: url, encoding: .utf8)
            seeds.append(Data(text.utf8))
            if let der = Data(base64Encoded: text.filter { !$0.isWhitespace }) { seeds.append(der) }
        }
        #expect(seeds.count >= 8)
        for seed in seeds {
            for input in Self.mutations(of: seed) { await Self.exerciseReceipt(input) }
        }
    }

    @Test("Tokens — Apple's, Xcode's, ours — and mutations of them are refused or read, never a trap")
    func jwsSeeds() async throws {
        let signer = JWSSigner(certificateAuthority: TestAuthority.shared)
        let payload = #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.app","productId":"coins","purchaseDate":1748779200000,"signedDate":1748779200000,"environment":"Sandbox","type":"Consumable","inAppOwnershipType":"PURCHASED","quantity":1}"#
        var seeds = [try signer.sign(payloadJSON: Data(payload.utf8))]
        for url in try Self.vectors(matching: ".jws") {
            seeds.append(try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(seeds.count >= 5)
        for seed in seeds {
            for input in Self.mutations(of: Data(seed.utf8)) { await Self.exerciseJWS(String(decoding: input, as: UTF8.self)) }
        }
    }

    /// `FuzzReceipt` crash 691f8a38: a receipt whose embedded certificate has an RSA key BoringSSL refuses (an even
    /// modulus). swift-crypto 3.12 freed that key twice and the process aborted; now the certificate is refused first.
    static let evenModulusReceipt = """
            MIIWHQYJKoZIhvcNAQcCoIIWDjCCFgoCAQExDzANBglghkgBZQMEAgEFADCCBVMGCSqGSIb3DQEHAaCCBUQEggVAMYIFPDAKAgEIAgEBBAIWADAK
            AgEUAgEBBAIMADALAgEFAgEBBAMCAQAwCwIBAwIBAQQDDAEyMAsCAQsCAQEEAwIBADALAgEPAgEBBAMCAQAwCwIBEAIBAQQDAgEAMAsCARkCAQEE
            AwIBAzAMAgEKAgEBBAQWAjQrMAwCAQ4CAQEEBAICAOUwDQIBDQIBAQQFAgMCwXowDQIBEwIBAQQFDAMxLjAwDgIBCQIBAQQGAgRQMzA1MBgCAQQC
            AQIEEL4d0+qbz00IZS61ObngVpQwGwIBAAIBAQQTDBFQcm9kdWN0aW9uU2FuZGJveDAcAgEFAgEBBBQhWIR1Q2g4R+k4Kg/FGFPLF6vNbTAeAgEC
            AgEBBBYMFGRldi5ib256ZXIud2Vla2EuYXBwMB4CAQwCAQEEFhYUMjAyNS0xMi0yNlQxODozOTo0N1owHgIBEgIBAQQWFhQyMDEzLTA4LTAxVDA3
            OjAwOjAwWjA+AgEHAgEBBDaNiSjbEyIC17j8ePgTPTh9hM4ITv/Or+KuWZDb+PUCnI2tZlROOhpCHu0Y4KxRV+SSsdHz8sgwPwIBBgIBAQQ3RixM
            npFSQN813ExpFPmgYjnJgckXANHrw4AoJmkcjBLyF+1w1hjgc3EVzhtH5AsS9R7nHmRx7DCCAacCARECAQEEggGdMYIBmTALAgIGrQIBAQQCDAAw
            CwICBrACAQEEAhYAMAsCAgayAgEBBAIMADALAgIGswIBAQQCDAAwCwICBrQCAQEEAgwAMAsCAga1AgEBBAIMADALAgIGtgIBAQQCDAAwDAICBqUC
            AQEEAwIBATAMAgIGqwIBAQQDAgEDMAwCAgauAgEBBAMCAQAwDAICBrECAQEEAwIBADAMAgIGtwIBAQQDAgEAMAwCAga6AgEBBAMCAQAwEgICBq8C
            AQEECQIHBxr9UOdILTAbAgIGpwIBAQQSDBAyMDAwMDAxMDkyMTM0MTM4MBsCAgapAgEBBBIMEDIwMDAwMDEwOTIxMzQxMzgwHwICBqgCAQEEFhYU
            MjAyNS0xMi0yNlQxNzo0MzowN1owHwICBqoCAQEEFhYUMjAyNS0xMi0yNlQxNzo0MzowN1owHwICBqwCAQEEFhYUMjAyNS0xMi0yNlQxODoxOTow
            N1owNwICBqYCAQEELgwsZGV2LmJvbnplci53ZWVrYS5hcHAuc3Vic2NyaXB0aW9uLnByby5hbm51YWwwggGnAgERAgEBBIIBnTGCAZkwCwICBq0C
            AQEEAgwAMAsCAgawAgEBBAIWADALAgIGsgIBAQQCDAAwCwICBrMCAQEEAgwAMAsCAga0AgEBBAIMADALAgIGtQIBAQQCDAAwCwICBrYCAQEEAgwA
            MAwCAgalAgEBBAMCAQEwDAICBqsCAQEEAwIBAzAMAgIGrgIBAQQDAgEAMAwCAgaxAgEBBAMCAQAwDAICBrcCAQEEAwIBADAMAgIGugIBAQQDAgEA
            MBICAgavAgEBBAkCBwca/VDnSC4wGwICBqcCAQEEEgwQMjAwMDAwMTA5MjE0ODA5NDAbAgIGqQIBAQQSDBAyMDAwMDAxMDkyMTM0MTM4MB8CAgao
            AgEBBBYWFDIwMjUtMTItMjZUMTg6MTk6MDdaMB8CAgaqAgEBBBYWFDIwMjUtMTItMjZUMTc6NDM6MDdaMB8CAgasAgEBBBYWFDIwMjUtMTItMjZU
            MTg6NTU6MDdaMDcCAgamAgEBBC4MLGRldi5ib256ZXIud2Vla2EuYXBwLnN1YnNjcmlwdGlvbi5wcm8uYW5udWFsoIIO4jCCBcYwggSuoAMCAQIC
            EH05IAlOvvP478psEOqOQwMwDQYJKoZIhvcNAQELBQAwdTFEMEIGA1UEAww7QXBwbGUgV29ybGR3aWRlIERldmVsb3BlciBSZWxhdGlvbnMgQ2Vy
            dGlmaWNhdGlvbiBBdXRob3JpdHkxCzAJBgNVBAsMAkc1MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzAeFw0yNDA3MjQxNDUwMDNa
            Fw0yNjA4MjMxNDUwMDJaMIGJMTcwNQYDVQQDDC5NYWMgQXBwIFN0b3JlIGFuZCBpVHVuZXMgU3RvcmUgUmVjZWlwdCBTaWduaW5nMSwwKgYDVQQL
            DCNBcHBsZSBXb3JsZHdpZGUgRGV2ZWxvcGVyIFJlbGF0aW9uczETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwggEiMA0GCSqGSIb3
            DQEBAQUAA4IBDwAwggEKAoIBAQCtDzabzzfagXFb1vEU/BnT9dTwN01cRsKaKUdRYb6xP5hZ7BwXuq+zCVcFRNcXbV3SMMK7M6HUifR2OVZXLTU/
            Tal4gtFaYdZ7sC6VVPAHv2DkKaQzPUevdo9dA5uaOAohzN8Ul4fUHWHKKo3EPlWufJ1iALAKGDm45h2N86Qw8ZSTY9sT6TyOKf3ViHOzFJhvc8ni
            M9Un9rbjddbqzqvf4vgMvlmK7XB6rpIF2UwHIOVtTEh00D7+YHcBeT4TO3+FAM+Vf4JdlCA065J1tQZB+5+ZlyS677rYmUr0dy552Djeo9gvRVBE
            5DMimdX35ZyE+cYEEcvgVeE0yxWyIxWlAgMBAAGjggI7MIICNzAMBgNVHRMBAf8EAjAAMB8GA1UdIwQYMBaAFBmLl41KW2F4V/SlXDUSijkI47B1
            MHAGCCsGAQUFBwEBBGQwYjAtBggrBgEFBQcwAoYhaHR0cDovL2NlcnRzLmFwcGxlLmNvbS93d2RyZzUuZGVyMDEGCCsGAQUFBzABhiVodHRwOi8v
            b2NzcC5hcHBsZS5jb20vb2NzcDAzLXd3ZHJnNTA1MIIBHwYDVR0gBIIBFjCCARIwggEOBgoqhkiG92NkBQYBMIH/MDcGCCsGAQUFBwIBFitodHRw
            czovL3d3dy5hcHBsZS5jb20vY2VydGlmaWNhdGVhdXRob3JpdHkvMIHDBggrBgEFBQcCAjCBtgyBs1JlbGlhbmNlIG9uIHRoaXMgY2VydGlmaWNh
            dGUgYnkgYW55IHBhcnR5IGFzc3VtZXMgYWNjZXB0YW5jZSBvZiB0aGUgdGhlbiBhbHBwaWNhYmxlIHN0YW5kYXJkIHRlcm1zIGFuZCBjb25kaXRp
            b25zIG9mIHVzZSwgY2VydGlmaWNhdGUgcG9saWN5IGFuZCBjZXJ0aWZpY2F0aW9uIHByYWN0aWNlIHN0YXRlbWVudHMuMDAGA1UdHwQpMCcwJaAj
            oCGGG2h0dHA6Ly9jcmwuYXBwbGUuY29tL3d3ZHJnNS5jcmwwHQYDVR0OBBYEFO8oV7RgiElVMfD9WA7x/RqTxCT8MA4GA1UdDwEB/wQEAwIHgDAQ
            BgoqhkiG92NkBgsBBAIFADANBgkqhkiG9w0BAQsFAAOCAQEANSPSu1C/NmfMADVEfIqTp8Ren7lE6nJHzxCGuhztCnUeWTB1hcoidYlCC+GccOU+
            pTx6kPg/EqxzTCRYmS7fgfEPJaYOpTBOpeawzVN7RUuw5ls6MNa09CtSog9P1hMjgjPmLYWRUHwx1EhxlPoIle6dAGYaueaJDI6xiX0WSrCIFR0U
            KYcUHTH6rmoA8j2RY1uAgkgePkrTAt2GXc1y4jc8qAslu2Paqz8xZagnG/A7U0UdEn5GH8WsH8hznJj4NLBgfe7zEQxWlj4JBOft5B5HWbDwgzcu
            +xzHE6Npcuu9mCaQhI9uTfxoKftNbhjt3K2qucRpmBQI/flL+2z+mTCCBFUwggM9oAMCAQICFDt+gAru0wKh5szbl9nKrCic8WmUMA0GCSqGSIb3
            DQEBCwUAMGIxCzAJBgNVBAYTAlVTMRMwEQYDVQQKEwpBcHBsZSBJbmMuMSYwJAYDVQQLEx1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTEW
            MBQGA1UEAxMNQXBwbGUgUm9vdCBDQTAeFw0yMDEyMTYxOTM4NTZaFw0zMDEyMTAwMDAwMDBaMHUxRDBCBgNVBAMMO0FwcGxlIFdvcmxkd2lkZSBE
            ZXZlbG9wZXIgUmVsYXRpb25zIENlcnRpZmljYXRpb24gQXV0aG9yaXR5MQswCQYDVQQLDAJHNTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UE
            BhMCVVMwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCfXdof+/q80EsiPMfWJvoX9/SfHj5kEWaa716+qzS9qiwhbtYelCGFLHTBDhBh
            qjxjSn5K48h11s/CnAhIe2q5KbHJZv3IihbRsgQ8grqAbOL/CnLrrP47b0i+nosRTZV9snuQLwIcTvxJvtdvtU++eMba3rLNydlmETta6QlFc4lQ
            1E7iaAV+2nWcSwGu2uPPbXRN3lPQ1Ro4gjrQneNdKXuxgeopJwv7YHyGEvvwYk8G50zRH9ltnu1z2nghDZ1w2UZXkF9nhMFzdwqoYmK2rnCGu3Uj
            ia159uak1P2DJjIKOySSWyChnNEvgBib3TwL57X97IBXDxeePyuHJ7v3AgMBAgCjge8wgewwEgYDVR0TAQH/BAgwBgEB/wIBADAfBgNVHSMEGDAW
            gBQr0GlHlHYJ/vRrjS5ApvdHTX8IXjBEBggrBgEFBQcBAQQ4MDYwNAYIKwYBBQUHMAGGKGh0dHA6Ly9vY3NwLmFwcGxlLmNvbS9vY3NwMDMtYXBw
            bGVyb290Y2EwLgYDVR0fBCcwJTAjoCGgH4YdaHR0cDovL2NybC5hcHBsZS5jb20vcm9vdC5jcmwwHQYDVR0OBBYEFBmLl41KW2F4V/SlXDUSijkI
            47B1MA4GA1UdDwEB/wQEAwIBBjAQBgoqhkiG92NkBgIBBAIFADANBgkqhkiG9w0BAQsFAAOCAQEAWsQ1otnmCp5SogCCInfNci+Q+SKvFCXMqgpC
            YJLCvXUd60zKFeV+a0AQXvtbRXQN8Hp9iJHO3mOLQonSGN9Bs1ieBgiHSN1AryPV7essYOXrpH8c6ZyD1pRfTGI5ik6uE419Q7jcXqy+GEDy5g8s
            XROT8XtlqMJoSN7/tJabDPsyNp6eDZVfOAqLltISbLeLC47XPuxvAarOTUVg24RxZmLlGWUwzYr/RVP7bvuId0PDSGP591Gzcl554lbPvLuEuTha
            eK4RSFK7DTWLlN7MdJpo9UlglKzyqLMVhpDQzDBDhtPlcAJRtIHAqJfU6uqwjAlA7ziTss0iA+tnQ2XIRTCCBLswggOjoAMCAQICAQIwDQYJKoZI
            hvcNAQEFBQAwYjELMAkGA1UEBhMCVVMxEzARBgNVBAoTCkFwcGxlIEluYy4xJjAkBgNVBAsTHUFwcGxlIENlcnRwdXJjaGFzZS1kYXRlLXBzdHR5
            MRYwFAYDVQQDEw1BcHBsZSBSb290IENBMB4XDTA2MDQyNTIxNDAzNloXDTM1MDIwOTIxNDAzNlowYjELMAkGA1UEBhMCVVMxEzARBgNVBAoTCkFw
            cGxlIEluYy4xJjAkBgNVBAsTHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9yaXR5MRYwFAYDVQQDEw1BcHBsZSBSb290IENBMIIBIjANBgkqhkiG
            9w0BAQEFAAOCAQ8AMIIBCgKCAQEA5JGpCR+R2x5HUOsF7V55hC3rNqJXTFXsixmJ3vlLbPUHqyIwAugYPvhQCdN/QaiY+dHKZpwkaxHQo7vkGyrD
            H5WeegykR4tb1BY3M8vED03OFGnRyRly9V0O1X9fm/IlA7pVj01dDfFkNSMVSxVZHbOU9/acns9QusFYUGePCLQg98usLCBvcLY/ATCMt0PPD509
            8ytJKBrI/s61uQ7ZXhzWyz21Oq30Dw4AkguxIRYudNU8DdtiFqujcZJHU1XBry9Bs/j743DN5qNMRX4fTGtQlkGJxHRiCxCDQYczioGxMFjsWgQy
            jGizjx3eZXP/Z15lvEnYdp8zFGWhd5TJLQIDAQABo4IBejCCAXYwDgYDVR0PAQH/BAQDAgEGMA8GA1UdEwEB/wQFMAMBAf8wHQYDVR0OBBYEFCvQ
            aUeUdgn+9GuNLkCm90dNfwheMB8GA1UdIwQYMBaAFCvQaUeUdgn+9GuNLkCm90dNfwheMIIBEQYDVR0gBIIBCDCCAQQwggEABgkqhkiG92NkBQEw
            gfIwKgYIKwYBBQUHAgEWHmh0dHBzOi8vd3d3LmFwcGxlLmNvbS9hcHBsZWNhLzCBwwYIKwYBBQUHAgIwgbYagbNSZWxpYW5jZSBvbiB0aGlzIGNl
            cnRpZmljYXRlIGJ5IGFueSBwYXJ0eSBhc3N1bWVzIGFjY2VwdGFuY2Ugb2YgdGhlIHRoZW4gYXBwbGljYWJsZSBzdGFuZGFyZCB0ZXJtcyBhbmTd
            nJCRm5aLlm9ucyBvZiB1c2UsIGNlcnRpZmljYXRlIHBvbGljeSBhbmQgY2VydGlmaWNhdGlvbiBwcmFjdGljZSBzdGF0ZW1lbnRzLjANBgkqhkiG
            9w0BAQUFAAOCAQEAXDaZTC14t+2Mm9zzd5vydtJ3ME/BH4WDhRuZPUc38qmbQI4s1LGQEti+9HOb7tJkD8t5TzTYoj75eP9ryAfsfTmDi1Mg0zjE
            sb+aTwpr/yv8WacFCXwXQFYRHnTTt4sjO0ej1W8k4uvRt3DfD0XhJ8rxbXjt57UXF6jcfiI1yiXV2Q/Wa9SiJCMR96Gsj3OBYMYbWwkvkrL4REjw
            YDieFfU9JmcgijNq9w2Cz97roy/5U2pbZMBjM3f3OgcsVuvaDyEO2rpzGU+12TZ/wYdV2aeZuTJC+9jVcZ5+oVK3G72TQiQSKscPHbZNnF5jyEuA
            F1CqitXa5PzQCQc3sHV1ITGCAbUwggGxAgEBMIGJMHUxRDBCBgNVBAMMO0FwcGxlIFdvcmxkd2lkZSBEZXZlbG9wZXIgUmVsYXRpb25zIENlcnRp
            ZmljYXRpb24gQXV0aG9yaXR5MQswCQYDVQQLDAJHNTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMCEH05IAlOvvP478psEOqOQwMw
            DQYJYIZIAWUDBAIBBQAwDQYJKoZIhvcNAQEBBQAEggEAO5XdP65y7X9kSU047wrTzMu8C+kxjP76QbOquJEkwI9NR2a2Rbj2gGiVxepCkJBpZOam
            eNZGigBxkPbXvvCnTlDYvNWtHszrQii6l1TJp+dWIidfWKV28P0P97VhCmmO1AmwhjbOH2pG9aq534qJ4/OasJaFTTX0RtZUjsqzar2EQYtJb78e
            hmtLk70gp/CJqmY4MoCZuzDhtwmw8IcTh05+k/EchBK9R0x4PACxKiEJbMm12KQgnn8quCJ4ICpRW34ZofOKJT3XrnoHXgffM2wPyX29nbR023Dy
            7lECK9W21UwjQKSkKXvOHy1C1aZmdfg8Dh3vdMn58sbaNEToQQ==
        """

    @Test("A receipt whose certificate has an RSA key BoringSSL refuses is malformed, not an abort (fuzzing crash 691f8a38)")
    func receiptWithUnreadableRSAKey() async throws {
        let data = try #require(Data(base64Encoded: Self.evenModulusReceipt.filter { !$0.isWhitespace }))
        #expect(throws: FormatError.malformedData) { try SignedReceipt(data: data) }
        // The payload alone, read without the certificates, is intact.
        #expect(try AppReceipt(receiptData: data).bundleID == "dev.bonzer.weeka.app")
        let result = await Self.receiptVerifier.verify(data)
        #expect(throws: ReceiptVerificationFailure.malformedReceipt) { try result.get() }
        await Self.exerciseReceipt(data)
    }

    /// Apple's RSA root with the last byte of its modulus made even: BoringSSL refuses the key.
    static func appleRootWithEvenModulus() throws -> [UInt8] {
        var der = Array(try Fixtures.appleRootCA)
        // The modulus INTEGER is followed by the exponent 65537: 02 03 01 00 01.
        let exponent: [UInt8] = [0x02, 0x03, 0x01, 0x00, 0x01]
        let start = try #require((0...(der.count - exponent.count)).first { Array(der[$0..<($0 + exponent.count)]) == exponent })
        der[start - 1] &= 0xFE
        return der
    }

    @Test("A certificate with an RSA key BoringSSL refuses is a FormatError wherever a certificate is read")
    func certificateWithUnreadableRSAKey() async throws {
        let der = try Self.appleRootWithEvenModulus()
        #expect(CertificateParser.unreadableRSAKey(in: Array(try Fixtures.appleRootCA)) == nil)
        #expect(CertificateParser.unreadableRSAKey(in: der)?.contains("modulus") == true)
        #expect(throws: FormatError.malformedCertificate) { try CertificateParser.certificate(derEncoded: der) }
        #expect(throws: FormatError.malformedCertificate) { try ReceiptVerifier(rootCertificates: [Data(der)]) }
        #expect(throws: FormatError.malformedCertificate) { try JWSVerifier(rootCertificates: [Data(der)]) }

        // In a JWS header's x5c: refused as a malformed token by the verifier, and by CompactJWS's certificates.
        let certificate = Data(der).base64EncodedString()
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "x5c": [certificate, certificate, certificate]])
        let token = [header, Data("{}".utf8), Data(count: 64)].map { $0.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "") }
            .joined(separator: ".")
        #expect(throws: FormatError.malformedCertificate) { try CompactJWS(token).certificates }
        let result = await Self.jwsVerifier.verifyTransaction(token)
        #expect(throws: JWSVerificationFailure.malformedToken) { try result.get() }
    }
}
