import Foundation

@testable import AppStoreFormats

/// A fixed certificate authority (generated once by `storekit ca export`), so tests use fixed keys.
enum TestAuthority {
    /// The authority, loaded from the PEM texts below.
    static let shared: CertificateAuthority = {
        do {
            return try CertificateAuthority(pemFiles: pemFiles)
        } catch {
            fatalError("The fixed test authority does not load: \(error)")
        }
    }()

    static let pemFiles: [String: String] = [
        "jws-intermediate-key.pem": """
            -----BEGIN PRIVATE KEY-----
            MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDDEPQ5Eww6CzMnMpMeH
            OMakJ1LsVaFLYzfMi/qwuva/2mujmNb5UDCtDk6CFl82iNChZANiAAQt5HqC+YC7
            2U6JX5EkXj9ILjB8knc7MdbEjSaLBCbG9P6FKg2QCIK91cfFpqJFkfkKtLHIHHY3
            YywVGz3ohkDvSvVIjaFmnV5zBdM5K6HlBfwbP4Ncpw2LBle/CJ8z5vY=
            -----END PRIVATE KEY-----
            """ + "\n",
        "jws-intermediate.pem": """
            -----BEGIN CERTIFICATE-----
            MIIClDCCAhqgAwIBAgIUZ8H7+BfLGJCe6bXkg3pRNEiriAgwCgYIKoZIzj0EAwMw
            ajEVMBMGA1UECgwMT3BlblN0b3JlS2l0MS0wKwYDVQQLDCRPcGVuU3RvcmVLaXQg
            Q2VydGlmaWNhdGlvbiBBdXRob3JpdHkxIjAgBgNVBAMMGU9wZW5TdG9yZUtpdCBS
            b290IENBIC0gRzMwIBcNMDAwMTAxMDAwMDAwWhgPMjA5OTEyMzEyMzU5NTlaMHEx
            FTATBgNVBAoMDE9wZW5TdG9yZUtpdDELMAkGA1UECwwCRzYxSzBJBgNVBAMMQk9w
            ZW5TdG9yZUtpdCBXb3JsZHdpZGUgRGV2ZWxvcGVyIFJlbGF0aW9ucyBDZXJ0aWZp
            Y2F0aW9uIEF1dGhvcml0eTB2MBAGByqGSM49AgEGBSuBBAAiA2IABC3keoL5gLvZ
            TolfkSReP0guMHySdzsx1sSNJosEJsb0/oUqDZAIgr3Vx8WmokWR+Qq0scgcdjdj
            LBUbPeiGQO9K9UiNoWadXnMF0zkroeUF/Bs/g1ynDYsGV78InzPm9qN4MHYwEgYD
            VR0TAQH/BAgwBgEB/wIBADAOBgNVHQ8BAf8EBAMCAQYwHQYDVR0OBBYEFOJ2i/dA
            UiOhcYe+oKE3CwLqIPSWMB8GA1UdIwQYMBaAFI1fwyTXypADlqwvT/zDHqByXMqO
            MBAGCiqGSIb3Y2QGAgEEAgUAMAoGCCqGSM49BAMDA2gAMGUCMQDyxkgLMHJs97wd
            Cn8r9nW62HtQfhFttjSQmBv+IydrHPEvrUuooshdcgAHizfePZwCMBdVC48ZHHv0
            ZncMXBDEgNVd/lcDmPrcLFxNusP6OX/QI+hSy1y7eQn6GFy8CPSz5A==
            -----END CERTIFICATE-----
            """ + "\n",
        "jws-leaf-key.pem": """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/2E8aSlQH7Ok2EQW
            x8c/JJq+ttz/OlvYAhUsnoqeThqhRANCAAR6Ymk/BPUtQwd2R5o9LBOYu/UFnZtN
            l5/4xl/5ptN7QSvh+wLQkWxKpDAJlon5mUpL6iaWP3Ph5GpVePseoFat
            -----END PRIVATE KEY-----
            """ + "\n",
        "jws-leaf.pem": """
            -----BEGIN CERTIFICATE-----
            MIICpDCCAiqgAwIBAgIVAOKrcxj0Lxzwm8H86E8+N+j5dYo2MAoGCCqGSM49BAMD
            MHExFTATBgNVBAoMDE9wZW5TdG9yZUtpdDELMAkGA1UECwwCRzYxSzBJBgNVBAMM
            Qk9wZW5TdG9yZUtpdCBXb3JsZHdpZGUgRGV2ZWxvcGVyIFJlbGF0aW9ucyBDZXJ0
            aWZpY2F0aW9uIEF1dGhvcml0eTAgFw0wMDAxMDEwMDAwMDBaGA8yMDk5MTIzMTIz
            NTk1OVowgZsxFTATBgNVBAoMDE9wZW5TdG9yZUtpdDEzMDEGA1UECwwqT3BlblN0
            b3JlS2l0IFdvcmxkd2lkZSBEZXZlbG9wZXIgUmVsYXRpb25zMU0wSwYDVQQDDERP
            cGVuU3RvcmVLaXQgUHJvZCBFQ0MgTWFjIEFwcCBTdG9yZSBhbmQgaVR1bmVzIFN0
            b3JlIFJlY2VpcHQgU2lnbmluZzBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABHpi
            aT8E9S1DB3ZHmj0sE5i79QWdm02Xn/jGX/mm03tBK+H7AtCRbEqkMAmWifmZSkvq
            JpY/c+HkalV4+x6gVq2jcjBwMAwGA1UdEwEB/wQCMAAwDgYDVR0PAQH/BAQDAgeA
            MB0GA1UdDgQWBBQ3vXiPmA6RpEBLKeNs99D6wuvlIDAfBgNVHSMEGDAWgBTidov3
            QFIjoXGHvqChNwsC6iD0ljAQBgoqhkiG92NkBgsBBAIFADAKBggqhkjOPQQDAwNo
            ADBlAjBlHZvfK5sE+qBs9OslNP3xnRz+IQ/7P62FdsRBtRF9Ger0qgSeIAz8DnZL
            WFEr/jECMQDlgubCS4IEqRnctCX5k5+0/bwEzLZb6YKpGPuf8oEr8LiWmz0rO7m/
            9G4zbO0LFdA=
            -----END CERTIFICATE-----
            """ + "\n",
        "jws-root-key.pem": """
            -----BEGIN PRIVATE KEY-----
            MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDATnuMeumyRBFfUS+f9
            Ex+kcvxJwimaPiedvSHJC6wGTJYv8dBW3iIMDLXlbaLsTfOhZANiAASjqtYOzp2i
            A9WHoh0wb6FPpeLRKFZwL/DEwLgRsXM2sPMjRMcOZewmCetg9pBcfGo5hn+xbELn
            t83xOuJz4WqtU2BGypun2CQhvG3eYurIgWU377c0s4xlvTC5T0tE9Fs=
            -----END PRIVATE KEY-----
            """ + "\n",
        "jws-root.pem": """
            -----BEGIN CERTIFICATE-----
            MIICVzCCAd6gAwIBAgIVAKlsPlobpnsOnbpBOVpmueif/WKSMAoGCCqGSM49BAMD
            MGoxFTATBgNVBAoMDE9wZW5TdG9yZUtpdDEtMCsGA1UECwwkT3BlblN0b3JlS2l0
            IENlcnRpZmljYXRpb24gQXV0aG9yaXR5MSIwIAYDVQQDDBlPcGVuU3RvcmVLaXQg
            Um9vdCBDQSAtIEczMCAXDTAwMDEwMTAwMDAwMFoYDzIwOTkxMjMxMjM1OTU5WjBq
            MRUwEwYDVQQKDAxPcGVuU3RvcmVLaXQxLTArBgNVBAsMJE9wZW5TdG9yZUtpdCBD
            ZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTEiMCAGA1UEAwwZT3BlblN0b3JlS2l0IFJv
            b3QgQ0EgLSBHMzB2MBAGByqGSM49AgEGBSuBBAAiA2IABKOq1g7OnaID1YeiHTBv
            oU+l4tEoVnAv8MTAuBGxczaw8yNExw5l7CYJ62D2kFx8ajmGf7FsQue3zfE64nPh
            aq1TYEbKm6fYJCG8bd5i6siBZTfvtzSzjGW9MLlPS0T0W6NCMEAwDwYDVR0TAQH/
            BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwHQYDVR0OBBYEFI1fwyTXypADlqwvT/zD
            HqByXMqOMAoGCCqGSM49BAMDA2cAMGQCMHP4j6qqkotdB9n2vYy+RdzHT4lkG0Z1
            L0TOC8KlJO+rO2q2nkzp9qszTI827bO3cAIwMFg6cpHjO7rmpBnTjmSVhPLw+YLo
            Q2uv0z1NnrqGxRzurca+zrj8B71cDu0KI9I7
            -----END CERTIFICATE-----
            """ + "\n",
        "receipt-intermediate-key.pem": """
            -----BEGIN PRIVATE KEY-----
            MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDv62jyf/aQ/HX+
            8RE6Ek//inkTyfgzlb1zlyY7eT8O9LFNt9jtbhOksuTHOigV/fDZtW+eXOPReDQT
            iuoqu0Js+IwsXgqIMcJW3u05xsHsbys8rKF6BMEWgj245ROxdzi5UICvokOcuVoZ
            zT7hkjdOjne56y/ylPBZEshd0Cukv7ZtU4aK1FI1cQT6yAnI1rnl7pmgP5SS5PV0
            GT6r6pBrcgVqSAc3CU4Wx9RDIIA4wjRXsSdPxNlq/yslanSvKnaU7OOWkzk6p4PG
            srJ1UyXaplI3H/sfVCKzaOqviCaMx2o+tgDXG+JHSVo/CIfSPN2O6J/GiZaW90Mg
            f2JDQQKvAgMBAAECggEAJbIOHjPe0K7p9zF3LHGeIh9moKZWGfzH9HZmKmgFcVse
            1IAzVDK8YV8+NNM9Yx8wDXTFYdNkdA/31q431pjveeGfXIU2EGoJB88k5LQG2hgp
            afIRuPMwR1IVUoyjiHmb7vnoDjBngSNaNb2ayKRJjk0yIIMEWI/wJ36c/qhrgwnS
            PEakkYBxUSkYc9NCtTMkEJDrj0Ueon5UICBHdKGKZcT06D02VPnzE8CQuim3S5Rk
            /TvMJ1W1T2vHbfNSpgXGQl9U3jxOu3PRZA3Lveg0WUrO1DNwUHs929wZZ0JoIW/e
            UQsQRsm6N0LRmYXKY35lZ/MMDQcFiNfxuW15dKQZ8QKBgQD/wnZFcNiJmGnDKH/J
            QJe/MVzi5IlJyI2AhIPkZUN2M2tFwS+VcuHpw2mC6GW05ZIPt/nS06AZRiRpB9g2
            NbWVZCrRukkm+g3u0CflXdAbfT4iJA2FokbOjrfa8wJnEbk/kSzMINwUrqkehMsC
            8SHjPfo2M9ObBLSV+PLosP9pKQKBgQDwJSL+t6fUm0ccgZBQCM8lLR+e6T3daK+m
            f6V5LmNN2UUcEPbd9ZJevTzxDBsyOEVJQRkgP1XizD7a1a16O7CXGWX59FN+oUxE
            JCI9AFeZ1DEdxrDKK0sTk0CUvLOCLQPH2ux+x0ElQi5lPOc6A5GlDp024N+8edWe
            htBAI1wQFwKBgFo97yVJT94c3RRzMcN8+w4HCNM1+AsErIjwOOlZoZgPRIZ0R6nf
            wz6MKKp7/Yb6ibLqI0f0S8UfLrGwhuV5xfxUP5eIt079Y/UjlTAlDczlQAsj1XGV
            dI5lZRHoNKzRYB/BxaCw53aUui9+g3MiSea4c5S0bLGB04YnNO5NpZEhAoGBANpi
            +1snC3JWL6olzWZrTG3jhkEOnZsPS8WfiY0VeWtfbfDjII2jeJO9hoEzYDwgXioL
            EF16G5Hf6j06WsOxKpuOlmVkItYiu2ewcI6HFCMpi+0nNrjz/Bd2LyHUJW75ntmO
            Jsn4TC8k62pXo3PnsPiovKIeiHkvVuwOb64UOfHLAoGBAMRc4ZF2u9P0msD/pksD
            VaJt9w7XSlJ96s8T5TLUptroHvWDkLFiwxforyPSrDDkopz9ljxne+XwuHx2AgYH
            sy2A71CzsRDtBcj0LTmVd3oiuwOJqXPNxNKU5pl5daav78U4MuYd2BqgvJiF5Vqd
            lNcUTwXivtm7f4cGC8LCQrUn
            -----END PRIVATE KEY-----
            """ + "\n",
        "receipt-intermediate.pem": """
            -----BEGIN CERTIFICATE-----
            MIID3jCCAsagAwIBAgIUc3mFHI6oWbB+ZrXTz5//49jqqkswDQYJKoZIhvcNAQEL
            BQAwZTEVMBMGA1UECgwMT3BlblN0b3JlS2l0MS0wKwYDVQQLDCRPcGVuU3RvcmVL
            aXQgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkxHTAbBgNVBAMMFE9wZW5TdG9yZUtp
            dCBSb290IENBMCAXDTAwMDEwMTAwMDAwMFoYDzIwOTkxMjMxMjM1OTU5WjBxMRUw
            EwYDVQQKDAxPcGVuU3RvcmVLaXQxCzAJBgNVBAsMAkc1MUswSQYDVQQDDEJPcGVu
            U3RvcmVLaXQgV29ybGR3aWRlIERldmVsb3BlciBSZWxhdGlvbnMgQ2VydGlmaWNh
            dGlvbiBBdXRob3JpdHkwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQDv
            62jyf/aQ/HX+8RE6Ek//inkTyfgzlb1zlyY7eT8O9LFNt9jtbhOksuTHOigV/fDZ
            tW+eXOPReDQTiuoqu0Js+IwsXgqIMcJW3u05xsHsbys8rKF6BMEWgj245ROxdzi5
            UICvokOcuVoZzT7hkjdOjne56y/ylPBZEshd0Cukv7ZtU4aK1FI1cQT6yAnI1rnl
            7pmgP5SS5PV0GT6r6pBrcgVqSAc3CU4Wx9RDIIA4wjRXsSdPxNlq/yslanSvKnaU
            7OOWkzk6p4PGsrJ1UyXaplI3H/sfVCKzaOqviCaMx2o+tgDXG+JHSVo/CIfSPN2O
            6J/GiZaW90Mgf2JDQQKvAgMBAAGjeDB2MBIGA1UdEwEB/wQIMAYBAf8CAQAwDgYD
            VR0PAQH/BAQDAgEGMB0GA1UdDgQWBBS6Mt17RcKQstCMNEfy+N9Ho2W6/DAfBgNV
            HSMEGDAWgBTylGBwjOi2acR6LhunhfqWeMzgiDAQBgoqhkiG92NkBgIBBAIFADAN
            BgkqhkiG9w0BAQsFAAOCAQEAZiwd7P2h0Ld3KsWvBIcntPC2G0TDUHWBhLQZkSsn
            HqWT9nqfGIrj7kgnqQdr8N8yUEXNpifa43xtipTh1iDcbdoR59H63wVNGZDv40uU
            Fut5vjebET0bvSFa2F1q9UFZM56LtZtti3Dw+glA7o0Tvx4of0PnZokwKP8UAbTk
            jWClZe0e/3o4Zdi7d9rdnb4mXNY+uvQsfVsk+tPL6xCAhiAb2Cte73SFc/qM2HH9
            5r6oYrlC/DkPSUdHThDqL/9cnMEmDkvSiWhTDHPV1xKnIH2jl6bnNdaJpu0D/QDW
            73V+pQyPAYiAF5JuqU20/JVWzOaifVzQ13ICTb8ileWRgg==
            -----END CERTIFICATE-----
            """ + "\n",
        "receipt-leaf-key.pem": """
            -----BEGIN PRIVATE KEY-----
            MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDClRWUzbBmVxka
            D/uphzylCF6PDk1nuQItmJpaKqSOAWpItl8/1xaspkbkroBGFIKyZQyaoYkfzbwS
            dvwM3VztXX+lq2KVIbxqhdCnyj5wX0Lqja8JQCTH2xH/Az10ABAy/5FZ5ZipuIDG
            qa+FyZEXpo3rENofMvps4agF0gc/93i2iZU0tIYv29NwzQCxb9DFG1pbmTPRgbYg
            7qYFBSn4V8a53CcbxZgAmmk+g6ImwkxC5x/5TyN+v6obSFjqNOqHBrykh0Xxs6Be
            xov4HBSjELYt1v9HjO6Twdbl3UN0Qy3i5FSHa3NicbR8pzHdTQRRFBQdCqbZYyP5
            nl5GVXkrAgMBAAECggEADZLDJW6O7MFyoAP+NPGY5C8IEy6XBuWiJnZ/F38WArN/
            XucdEDth+ruQNaK+klgbIQ3Pdt61ANTwvTdmyaoly1Q6wHgkflN5Uzm80ZeLPeEU
            FLLuQztVCLDAoDgkcOBFDdAQd/1K5iJXfIQyf3PaFsfb6n1yDO8ZBoz1k/WP4xqy
            QL9UV5R69zraROp4Ggm85XeyIPWXV8ezcAvjzIJ9E9Ga7FnGQhZsFTF0i1/ReDbz
            wJBmcY7P+C+1IWOXToN9+ECLPmKqwItl61PVKkAVVAnRXTTd3/Vso3A5h4+zIEqr
            XHgALlkfZchhHAb4jRXHuh6MrwjvTHSc8oJzIdG5gQKBgQDjRl+866XAQn0RUQ7S
            27Rbnrvl3LMf89Dlo3TIYV25DANDbhNnyQTdqTMBkvZMzP9ofnJPQ8CSHoyISPZB
            mQyKpvgcROlWkQ6NLbW96TnS1Ko9tcsquwl/vOFsc+GES+nifoTGk2mUCybk7cGI
            Up+DV0UAE7qhs1djXW2ucKG1iwKBgQDbLOwS/MmNNNVpjFwgMBO5pW67Q0P1PJrL
            iBvGi7c1+UiOEo9fFPAXs0Qvjv7IXlRaCidqH5dlr7CmhR17Nh87Ie08MnzVJb+/
            sRc6cWo+WZd39q2aiJxDOYTcbJVji6feJ6PbouTm82eLMhIMI8HopQ6xE+gGR8L3
            Vem5Vt/+4QKBgQDiuv4flmaQ2sOyVs8XBB91l3GT6wy3v6CStvJ2RMwfIyDOUC4D
            x8KW74j29QnJrGjQcfTPpqOiId/IxiEFaA3e9JtoeEbgGW4O4Z8Bin4pGgeL8KRy
            SI09ZcztSN2eAa2eSuFiyQT2r/lpQNdljCed+53WadgyIJv5gOc+sxZf6QKBgCHh
            kODiiPm2KCN32inzpKj3JOX34QKBCuDZuol3waurTIcB4X3uS6suQCUl8sbgpiOB
            HFSwa4QBo8oqG8OXOz614OmEWH3OpxSn+JJFRAo9aUfXL0ELSzStKJe2hWVtClcy
            Q4dJaB83k1MWO2n7ARfIpDvFewG1iDMZ6daH0nqhAoGAYgVutbwN55oZ4tz2uH0+
            thJDLtQUeRyOwMcMgXfmftFDP00dAnaUJMAz3PM/pDFfTrKJkemk8csA3VxrppaX
            6jIVmREpz0lfFYCyBStiAQDRmX10Ztft3iqBrOBlMZ+Kk+QC3dNIiwWU5J/amRd+
            9eZITrbCS2iqhgJeucCfOwM=
            -----END PRIVATE KEY-----
            """ + "\n",
        "receipt-leaf.pem": """
            -----BEGIN CERTIFICATE-----
            MIIEBjCCAu6gAwIBAgIUJS7EeUkbcD3opPDVzOQPY041K3AwDQYJKoZIhvcNAQEL
            BQAwcTEVMBMGA1UECgwMT3BlblN0b3JlS2l0MQswCQYDVQQLDAJHNTFLMEkGA1UE
            AwxCT3BlblN0b3JlS2l0IFdvcmxkd2lkZSBEZXZlbG9wZXIgUmVsYXRpb25zIENl
            cnRpZmljYXRpb24gQXV0aG9yaXR5MCAXDTAwMDEwMTAwMDAwMFoYDzIwOTkxMjMx
            MjM1OTU5WjCBkjEVMBMGA1UECgwMT3BlblN0b3JlS2l0MTMwMQYDVQQLDCpPcGVu
            U3RvcmVLaXQgV29ybGR3aWRlIERldmVsb3BlciBSZWxhdGlvbnMxRDBCBgNVBAMM
            O09wZW5TdG9yZUtpdCBNYWMgQXBwIFN0b3JlIGFuZCBpVHVuZXMgU3RvcmUgUmVj
            ZWlwdCBTaWduaW5nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwpUV
            lM2wZlcZGg/7qYc8pQhejw5NZ7kCLZiaWiqkjgFqSLZfP9cWrKZG5K6ARhSCsmUM
            mqGJH828Enb8DN1c7V1/patilSG8aoXQp8o+cF9C6o2vCUAkx9sR/wM9dAAQMv+R
            WeWYqbiAxqmvhcmRF6aN6xDaHzL6bOGoBdIHP/d4tomVNLSGL9vTcM0AsW/QxRta
            W5kz0YG2IO6mBQUp+FfGudwnG8WYAJppPoOiJsJMQucf+U8jfr+qG0hY6jTqhwa8
            pIdF8bOgXsaL+BwUoxC2Ldb/R4zuk8HW5d1DdEMt4uRUh2tzYnG0fKcx3U0EURQU
            HQqm2WMj+Z5eRlV5KwIDAQABo3IwcDAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQE
            AwIHgDAdBgNVHQ4EFgQUiwpui4kug49m7MFz+2Ra2I6CChgwHwYDVR0jBBgwFoAU
            ujLde0XCkLLQjDRH8vjfR6NluvwwEAYKKoZIhvdjZAYLAQQCBQAwDQYJKoZIhvcN
            AQELBQADggEBAFMPy83eepddSGb8ErEx7eLcynW7gA5fZrtWMn3QAzAmojaRngDI
            QOM7Rw/Of+pPW5BEUMKY7mS6Lf7d4zqqwzjwn2P0XaRgbpPcnh8iyd1MfSXgKpve
            AZ+CcaHuB8NzbEXEyex/87+VUwdkmFMqPaTzAK83deVGlMjUuWxszp55pueUQe77
            NQf0wm7lrEpsLuk4lX1rqyFmmI2cyjhHonUASHqnb1oyXHrkjstDK+D/GbABGuIc
            ngHIlGAOoBuZfdNSgRNn1CjFClPj+yP1PQNH6NdjsT9guYiWNCqDKqQgLKurgb/8
            bPWCn//r/Egv3wDwf2wHGkn9iSImMkJOJIY=
            -----END CERTIFICATE-----
            """ + "\n",
        "receipt-root-key.pem": """
            -----BEGIN PRIVATE KEY-----
            MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDGosojKN4gH3jH
            Zx9y3VqOlyMSnt9G6T3PwSqdrEsvGETLn+FgAEoWJrgTK1s1pe9qqdz6FDK2oAUj
            KgnLnCQ+LcfJz8wkxBJlMbQhYa/wolBW02r6YGiEc3JDYHo+zTdgsY59RAEwRBrx
            1pwylhgFM4nfcyylIlU6TvXTlahF9oMPvi6kQ6DRl7UEOtjxpfgn9dk7YzVI5GOY
            sG6h8iQYFsqcsOqPx314m18ACdrpz7Ok1Zah6N1cKer3DwNOfSzNZ8BlAHBf8u56
            fUYHBh4Z1fZpMNqiy8dnFmPKh7mFzpEnmLiZRXWwxIuf18WImZTAtXz5mPpqn5x5
            MJ1cyuupAgMBAAECggEAI0XXotA4R5iHHFO74iwcD1uX0w/qwr8a5phc/rRQgouq
            9cTNovxSK6ZTBDZsAzYU8oo47yCkk8kNOH4X0LQIvJDpHDV+AR5fTOB7Zf0gntjX
            7t8qrUzu6mxMw1mvw5SyC4XkMWrg0icZ6M2NHa+JEu1gw5ECgc17uHe6kAjQoaGR
            SsiAeUPTOcHozHfO804UoEbTAMst+VLIVGKcd/hHJdPnoCkp7NNvqNyKZWf37v5H
            +iegS+dKfRz7jQiWTaHnfUuz6YIyesXMXMMfbXb46NdG4S2w3z1vJKlVu+Nb9mbW
            JbQsu3jVQb/7mZpu6HDCGynW+o3WXvt/XYlupBnaPQKBgQDwVwlCVYrzw0TPo/dJ
            24dKmHpV5LEbTopHi+cXjQz78pJXbzdMLmvLUtrTIKjx74h0inEPmP+IK89NMsaM
            LmCc5PoEoRlxWEZETKHd7R3ZUqpc7CJbIVMCmsyLmGTyQrNyPYn5zYuCqlbgj9Rb
            wtrLl0AYAxmVLHaAGpySYj74LQKBgQDTlBz1o7fbV5VHAMr80sYwhP8OhNvTGjFs
            C5PzQuAP1OVVOKS0Qy5LKmqrHvtAsWsTS/YlTL/b7Mi+F24cqAjIqCGvFxEHKJ7U
            uIHB9WTTeqdhJKia565sRHdTjsgBBBlPdix/hzKVWlqnn6Isa0WZ6GWiuQ1QLy2C
            FaaC4rwS7QKBgQCeauBBhx0l++oZa5yOZFNTChppD2rl8ukWq9LRJToPwB5R3471
            egu3Y4+1Zmu1vQuWtcI8Y77bRPVJj1RsBg3MnOlnr8CTg3odft2a6LaqDuEYitVC
            eD69EsgMo5C2VtztSj7uF1wD7r+BGY0CRvftBm9K5JAyUbJyUhguLPAQqQKBgANU
            FiyLGc5aj1+hlI/rpPCIdxa8YlTs2ZAwknBGQg4dtEnl7TlkwSqvjSQKBbvbzqps
            DIBDt9T24aWT6siKoDC/7F+7xinNqsn/6RKrEJ3/FPkDQZ/GO0k6voHTAjR54wgL
            /OE4uEP/OuPeMAfw3BRywn6P2LTFOTsNqiPu+zR1AoGAZKu9ht+po2VnvibAy8R4
            8rWHbXZeBx9UQQHDz6XI1uaFpsmpTQAgJoAmavqPs5Jm+H9YAV89vmJU3/Gl3t9N
            iStKq45FZhlMLt8B9Y4/QeeB54XQxt/Z8i+SiTMRCT099aCvbZp3EEjlSRwnj6xd
            nV3pz13DJtZ9ZClSCjAwZUo=
            -----END PRIVATE KEY-----
            """ + "\n",
        "receipt-root.pem": """
            -----BEGIN CERTIFICATE-----
            MIIDnDCCAoSgAwIBAgIUBg/bULeLqPq7Ik1Gna3lHQDNTvwwDQYJKoZIhvcNAQEL
            BQAwZTEVMBMGA1UECgwMT3BlblN0b3JlS2l0MS0wKwYDVQQLDCRPcGVuU3RvcmVL
            aXQgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkxHTAbBgNVBAMMFE9wZW5TdG9yZUtp
            dCBSb290IENBMCAXDTAwMDEwMTAwMDAwMFoYDzIwOTkxMjMxMjM1OTU5WjBlMRUw
            EwYDVQQKDAxPcGVuU3RvcmVLaXQxLTArBgNVBAsMJE9wZW5TdG9yZUtpdCBDZXJ0
            aWZpY2F0aW9uIEF1dGhvcml0eTEdMBsGA1UEAwwUT3BlblN0b3JlS2l0IFJvb3Qg
            Q0EwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQDGosojKN4gH3jHZx9y
            3VqOlyMSnt9G6T3PwSqdrEsvGETLn+FgAEoWJrgTK1s1pe9qqdz6FDK2oAUjKgnL
            nCQ+LcfJz8wkxBJlMbQhYa/wolBW02r6YGiEc3JDYHo+zTdgsY59RAEwRBrx1pwy
            lhgFM4nfcyylIlU6TvXTlahF9oMPvi6kQ6DRl7UEOtjxpfgn9dk7YzVI5GOYsG6h
            8iQYFsqcsOqPx314m18ACdrpz7Ok1Zah6N1cKer3DwNOfSzNZ8BlAHBf8u56fUYH
            Bh4Z1fZpMNqiy8dnFmPKh7mFzpEnmLiZRXWwxIuf18WImZTAtXz5mPpqn5x5MJ1c
            yuupAgMBAAGjQjBAMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMB0G
            A1UdDgQWBBTylGBwjOi2acR6LhunhfqWeMzgiDANBgkqhkiG9w0BAQsFAAOCAQEA
            AiNnNKOwpQ9Mo0oY4C6pUIuaQBVn38b9dIFXeOdKNSLVp2oZEzNTLDXXo7e65jiz
            Xg6QNbliCS6Hs9P3WRwbQIvdOKnyL70frnC7fn9t6wEJBBYcvbj6XXLBJ2BocXIE
            /J/9D6ZQEtGufvz6e6rpJUiY+16lHmri8onz8FDTgx0oFKzb/M3TTy4YpyeGAmpi
            IDbEnzl9MC/encEGWh+o00YtkDyIyU6AcJYilELNmF6FmfTb+IARNx6z3fgQ/0O9
            lHE5t/yyYlIs8NNj+puXyDcYo32ctVvTtuVFAoInoJQhSliEaTkhoynhuZgEWN9b
            jRlyNyG92QwMFmJO7bd+HA==
            -----END CERTIFICATE-----
            """ + "\n",
    ]
}
