//! The model a checkpoint holds, as DLIO's `model.*` and `checkpoint.mode`
//! describe it (`mlperf_storage_v2.0` branch, utils/config.py), and DLIO's
//! checks of it (config.py `validate`).

use serde::{Deserialize, Serialize};

/// A tensor's element type (`model.model_datatype`,
/// `model.optimizer_datatype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Fp16,
    Bf16,
    Fp32,
    Fp64,
    Int8,
    Uint8,
}

impl Dtype {
    const ALL: [Dtype; 6] = [
        Dtype::Fp16,
        Dtype::Bf16,
        Dtype::Fp32,
        Dtype::Fp64,
        Dtype::Int8,
        Dtype::Uint8,
    ];

    /// DLIO's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
            Dtype::Fp32 => "fp32",
            Dtype::Fp64 => "fp64",
            Dtype::Int8 => "int8",
            Dtype::Uint8 => "uint8",
        }
    }

    pub fn parse(text: &str) -> Result<Dtype, String> {
        Dtype::ALL
            .into_iter()
            .find(|d| d.name() == text)
            .ok_or_else(|| {
                format!(
                    "'{text}' is not a datatype DLIO knows (fp16, bf16, fp32, fp64, int8, uint8)"
                )
            })
    }

    /// Bytes per element (`get_datatype_size`).
    pub fn size(self) -> u64 {
        match self {
            Dtype::Int8 | Dtype::Uint8 => 1,
            Dtype::Fp16 | Dtype::Bf16 => 2,
            Dtype::Fp32 => 4,
            Dtype::Fp64 => 8,
        }
    }

    /// The storage class `torch.save` names in its pickle.
    pub fn storage_class(self) -> &'static str {
        match self {
            Dtype::Fp16 => "HalfStorage",
            Dtype::Bf16 => "BFloat16Storage",
            Dtype::Fp32 => "FloatStorage",
            Dtype::Fp64 => "DoubleStorage",
            Dtype::Int8 => "CharStorage",
            Dtype::Uint8 => "ByteStorage",
        }
    }
}

/// `checkpoint.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every rank of the full parallelism runs.
    #[default]
    Default,
    /// Fewer ranks than the full parallelism, each writing its share
    /// (`model.parallelism.data` names the full data parallelism).
    Subset,
}

impl Mode {
    pub fn parse(text: &str) -> Result<Mode, String> {
        match text {
            "default" => Ok(Mode::Default),
            "subset" => Ok(Mode::Subset),
            _ => Err(format!(
                "'{text}' is not a checkpoint mode (default, subset)"
            )),
        }
    }
}

/// `model.parallelism`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parallelism {
    pub tensor: u64,
    pub pipeline: u64,
    /// The data parallelism; negative: derived from the ranks.
    pub data: i64,
    pub zero_stage: u64,
}

impl Default for Parallelism {
    fn default() -> Self {
        Parallelism {
            tensor: 1,
            pipeline: 1,
            data: -1,
            zero_stage: 0,
        }
    }
}

/// `model.transformer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transformer {
    pub vocab_size: u64,
    pub hidden_size: u64,
    pub ffn_hidden_size: u64,
    pub num_attention_heads: u64,
    pub num_kv_heads: u64,
}

impl Default for Transformer {
    fn default() -> Self {
        Transformer {
            vocab_size: 32000,
            hidden_size: 2048,
            ffn_hidden_size: 8192,
            num_attention_heads: 32,
            num_kv_heads: 8,
        }
    }
}

/// Everything the checkpoint's layout depends on, with DLIO's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// `model.type`: "transformer" sizes the model from its layers alone;
    /// any other (or none) adds one tensor of `model_size_bytes`.
    pub kind: Option<String>,
    /// `model.model_size_bytes`.
    pub size_bytes: i64,
    pub model_dtype: Dtype,
    pub optimizer_dtype: Dtype,
    /// `model.num_layers` (≤ 0: no layers).
    pub num_layers: i64,
    /// `model.optimization_groups` (DLIO's older, predefined sizes).
    pub optimization_groups: Vec<i64>,
    /// `model.layer_parameters` (DLIO's older, predefined sizes).
    pub layer_parameters: Vec<i64>,
    pub parallelism: Parallelism,
    pub transformer: Transformer,
    pub mode: Mode,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            kind: None,
            size_bytes: 10240,
            model_dtype: Dtype::Fp16,
            optimizer_dtype: Dtype::Fp32,
            num_layers: -1,
            optimization_groups: Vec::new(),
            layer_parameters: Vec::new(),
            parallelism: Parallelism::default(),
            transformer: Transformer::default(),
            mode: Mode::Default,
        }
    }
}

impl Model {
    /// Tensor times pipeline parallelism.
    pub fn model_parallelism(&self) -> u64 {
        self.parallelism.tensor * self.parallelism.pipeline
    }

    pub fn is_transformer(&self) -> bool {
        self.kind.as_deref() == Some("transformer")
    }

    /// DLIO's checks for a run on `ranks` ranks (config.py `validate`),
    /// and the ones that keep its formulas defined (a zero divisor makes
    /// DLIO fail with a Python traceback). One line naming the key.
    pub fn check(&self, ranks: u64) -> Result<(), String> {
        let p = &self.parallelism;
        let t = &self.transformer;
        if p.tensor == 0 || p.pipeline == 0 {
            return Err("model.parallelism.tensor and .pipeline must be at least 1".into());
        }
        if self.num_layers > 0 && t.num_attention_heads == 0 {
            return Err("model.transformer.num_attention_heads must be at least 1".into());
        }
        if self.num_layers > 0 && (self.num_layers as u64) < p.pipeline {
            return Err(format!(
                "model.num_layers {} should be larger than model.parallelism.pipeline {}",
                self.num_layers, p.pipeline
            ));
        }
        if p.pipeline > 1 && p.zero_stage == 3 {
            return Err(format!(
                "model.parallelism.zero_stage {} is not compatible with pipeline parallelism",
                p.zero_stage
            ));
        }
        if p.zero_stage > 3 {
            return Err(format!(
                "model.parallelism.zero_stage {} is not a ZeRO stage (0 to 3)",
                p.zero_stage
            ));
        }
        let mp = self.model_parallelism();
        match self.mode {
            Mode::Default if p.data > 0 => Err(
                "model.parallelism.data should not be set in default checkpoint mode; it is determined from the ranks (checkpoint.mode=subset sets it)"
                    .into(),
            ),
            Mode::Default if ranks % mp != 0 => Err(format!(
                "the number of ranks {ranks} is not a multiple of the model parallelism {mp} (tensor × pipeline)"
            )),
            Mode::Subset if p.data <= 0 => Err(
                "checkpoint.mode=subset needs the target data parallelism: model.parallelism.data"
                    .into(),
            ),
            Mode::Subset if (p.data as u64) * mp < ranks => Err(format!(
                "{ranks} ranks are more than the 3D parallelism {} (data × tensor × pipeline)",
                p.data as u64 * mp
            )),
            _ => Ok(()),
        }
    }

    /// The data parallelism of a run on `ranks` ranks.
    pub fn data_parallelism(&self, ranks: u64) -> u64 {
        match self.parallelism.data {
            d if d > 0 => d as u64,
            _ => ranks / self.model_parallelism(),
        }
    }

    /// Parameters of the whole model (`get_num_parameters`); 0 without
    /// layers.
    pub fn parameters(&self) -> u64 {
        if self.num_layers <= 0 {
            return 0;
        }
        let t = &self.transformer;
        let h = t.hidden_size;
        let kv = h / t.num_attention_heads * t.num_kv_heads;
        let embedding = t.vocab_size * h;
        let per_layer = h + h * (h + 2 * kv) + h * h + h + 3 * t.ffn_hidden_size * h;
        2 * embedding + per_layer * self.num_layers as u64 + h
    }
}
