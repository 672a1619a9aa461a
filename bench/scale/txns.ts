/**
 * Signed transactions built in the bench process, as a wallet would after a construct route:
 * the node's own constructor (server/chain/construct.ts: version 1, random nonce, fee for the
 * signed size) and signer (server/identity/signTxn.ts, on the calling thread). One HTTP request
 * per transaction (submit-transaction) instead of three (construct, sign, submit), so populating
 * 100k profiles is paced by the node's admission, not by the bench.
 * @module
 */
import { constructTxn } from '../../server/chain/construct.js';
import { priceToScaledExchangeRate, quantityToBaseUnits, BASE_UNITS_PER_DAO_COIN, type OrderSide } from '../../server/chain/daoCoinPrices.js';
import { DESO_COIN } from '../../server/chain/state/daoCoinLimitOrders.js';
import { TransferRestrictionStatus } from '../../server/chain/state/daoCoins.js';
import type { TxnOutput } from '../../server/chain/txn/envelope.js';
import { DAOCoinLimitOrderFill, DAOCoinLimitOrderOperation, DAOCoinOperation, NewMessageOperation, NewMessageType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { signTransaction } from '../../server/identity/signTxn.js';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';

/** What signs: a secret key and its 33-byte public key. */
export interface Signer {
  secret: Uint8Array;
  pk33: Uint8Array;
}

/** Fee rate every bench transaction pays (mainnet's floor; the dev chain's is 0, orders need > 0). */
export const FEE_RATE_NANOS_PER_KB = 1000n;
const NO_KEY_NAME = new Uint8Array(0);
const text = new TextEncoder();

export class TxnFactory {
  private readonly crypto = new InlineCrypto();
  private lastStampNanos = 0n;

  /** @param tipHeight the chain height nonces expire from; `setTip` keeps it current. */
  constructor(private tipHeight: bigint) {}

  setTip(height: bigint): void {
    this.tipHeight = height;
  }

  close(): Promise<void> {
    return this.crypto.close();
  }

  /** Wall-clock nanoseconds, strictly increasing: DM timestamps never collide within a thread. */
  nextStampNanos(): bigint {
    const now = BigInt(Date.now()) * 1_000_000n;
    this.lastStampNanos = now > this.lastStampNanos ? now : this.lastStampNanos + 1n;
    return this.lastStampNanos;
  }

  private build(signer: Signer, metadata: TxnMetadata, outputs: TxnOutput[] = []): { bytes: Uint8Array; feeNanos: bigint } {
    const c = constructTxn({
      publicKey: signer.pk33,
      metadata,
      outputs,
      minFeeRateNanosPerKB: FEE_RATE_NANOS_PER_KB,
      networkMinFeeRateNanosPerKB: 0n,
      tipHeight: this.tipHeight,
      maxNonceExpirationBlockHeightOffset: DEV_CHAIN_PARAMS.maxNonceExpirationBlockHeightOffset,
    });
    return { bytes: c.bytes, feeNanos: c.feeNanos };
  }

  private sign(signer: Signer, bytes: Uint8Array): Promise<Uint8Array> {
    return signTransaction(this.crypto, bytes, signer.secret, { derived: false });
  }

  transfer(from: Signer, outputs: TxnOutput[]): Promise<Uint8Array> {
    return this.sign(from, this.build(from, { type: 'BASIC_TRANSFER' }, outputs).bytes);
  }

  profile(user: Signer, username: string, description: string): Promise<Uint8Array> {
    const m: TxnMetadata = {
      type: 'UPDATE_PROFILE',
      profilePublicKey: new Uint8Array(0),
      newUsername: text.encode(username),
      newDescription: text.encode(description),
      newProfilePic: new Uint8Array(0),
      newCreatorBasisPoints: 1000n,
      newStakeMultipleBasisPoints: 12_500n,
      isHidden: false,
    };
    return this.sign(user, this.build(user, m).bytes);
  }

  /** A DM between the two base access groups, at `timestampNanos`. */
  dm(from: Signer, to: Uint8Array, encryptedText: Uint8Array, timestampNanos: bigint): Promise<Uint8Array> {
    const m: TxnMetadata = {
      type: 'NEW_MESSAGE',
      senderAccessGroupOwnerPublicKey: from.pk33,
      senderAccessGroupKeyName: NO_KEY_NAME,
      senderAccessGroupPublicKey: from.pk33,
      recipientAccessGroupOwnerPublicKey: to,
      recipientAccessGroupKeyName: NO_KEY_NAME,
      recipientAccessGroupPublicKey: to,
      encryptedText,
      timestampNanos,
      newMessageType: NewMessageType.DM,
      newMessageOperation: NewMessageOperation.CREATE,
    };
    return this.sign(from, this.build(from, m).bytes);
  }

  mintDaoCoin(creator: Signer, wholeCoins: bigint): Promise<Uint8Array> {
    const m: TxnMetadata = {
      type: 'DAO_COIN',
      profilePublicKey: creator.pk33,
      operationType: DAOCoinOperation.MINT,
      coinsToMintNanos: wholeCoins * BASE_UNITS_PER_DAO_COIN,
      coinsToBurnNanos: 0n,
      transferRestrictionStatus: TransferRestrictionStatus.UNRESTRICTED,
    };
    return this.sign(creator, this.build(creator, m).bytes);
  }

  transferDaoCoin(creator: Signer, to: Uint8Array, wholeCoins: bigint): Promise<Uint8Array> {
    const m: TxnMetadata = { type: 'DAO_COIN_TRANSFER', profilePublicKey: creator.pk33, daoCoinToTransferNanos: wholeCoins * BASE_UNITS_PER_DAO_COIN, receiverPublicKey: to };
    return this.sign(creator, this.build(creator, m).bytes);
  }

  /**
   * A good-till-cancelled order on (coin, native): ASK sells `quantity` coins, BID buys them,
   * at `price` native coins per coin (the create-dao-coin-limit-order route's conversions).
   * Its metadata carries its own fee, which must equal the transaction's (core rule), so the
   * fee is settled as that route settles it.
   */
  limitOrder(transactor: Signer, coin: Uint8Array, side: OrderSide, price: string, quantity: string): Promise<Uint8Array> {
    const sides = { buyingIsDeso: side === 'ASK', sellingIsDeso: side === 'BID' };
    const base = {
      type: 'DAO_COIN_LIMIT_ORDER' as const,
      buyingDAOCoinCreatorPublicKey: side === 'ASK' ? DESO_COIN : coin,
      sellingDAOCoinCreatorPublicKey: side === 'ASK' ? coin : DESO_COIN,
      scaledExchangeRateCoinsToSellPerCoinToBuy: priceToScaledExchangeRate(sides, price, side),
      quantityToFillInBaseUnits: quantityToBaseUnits(sides, side, quantity),
      operationType: side === 'ASK' ? DAOCoinLimitOrderOperation.ASK : DAOCoinLimitOrderOperation.BID,
      fillType: DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED,
      cancelOrderId: null,
      bidderInputs: [],
    };
    let built = this.build(transactor, { ...base, feeNanos: 0n });
    for (let i = 0; i < 8; i++) {
      const fee = built.feeNanos;
      built = this.build(transactor, { ...base, feeNanos: fee });
      if (built.feeNanos === fee) return this.sign(transactor, built.bytes);
    }
    throw new Error('limitOrder: the fee did not settle');
  }
}
