// Importing this module registers every built-in retriever.
import './hnsw.js';
import './exact.js';
import './bm25.js';
import './hybrid.js';
import './oracle.js';
import './random.js';
import './oracleNoise.js';
import './lancedb.js';
import './langchainHnswlib.js';
import './langchainLancedb.js';
