"""The precision stage: explicit vetoes on what the recall stage proposes.

The trained model proposes; these rules say no where the product policy forbids storing
(README "What is remembered"; issue 13 "Precision stage, explicit"). Each veto returns a reason
code, so a dropped candidate can be counted and explained. Message-level vetoes
(:func:`message_veto`) drop every candidate of a turn; span-level ones (:func:`span_veto`) judge
the sub-clause that holds the value. The word lists of the rules (:mod:`consolidation.extraction_zh`,
:mod:`consolidation.extraction_en`) are reused, not copied. Pure Python; no Django.
"""
from __future__ import annotations

import re

from profiles.taxonomy import REGISTRY

from ..extraction_common import detect_injection
from ..extraction_en import _EN_EMOTION, _EN_HYPO, _EN_STYLE_CUE, _EN_TEMP
from ..extraction_zh import _ZH_EMOTION, _ZH_HYPO, _ZH_PLAN, _ZH_PREF_MARK, _ZH_QWORD, _ZH_QWORD_WEAK, _ZH_TEMP
from .context import _ADDRESSEE_LABELS, ANSWER_STYLE as _ANSWER_STYLE, addressee, instruction_stands
from .text import (
    FIRST_PERSON, IMPLIED_FIRST_PERSON_EN, NEGATION_CUE, RETRACT_CUE, Span, around_sentence, clause_at, gazetteers, is_cjk,
    with_next_sentence,
)

# Preferences that direct an agent to leak or act are injections, whatever their wording: reveal
# prompts / keys / passwords / other people's data, add links, hide being an AI, ask for secrets.
_SECRET = (r"(?:system|developer|hidden)\s+(?:prompt|message|instructions?)|prompts?|instructions|api[\s_-]?keys?|keys you know"
           r"|passwords?|passcodes?|credentials?|tokens?|secrets?|other (?:users?|people|employees)(?:'s?)? (?:data|info\w*|records?)"
           r"|系统提示词?|系统指令|开发者(?:消息|指令)|提示词|密钥|密码|口令|令牌|验证码|别人的(?:数据|信息|资料)|其他(?:用户|人|同事)的(?:数据|信息|资料)")
_UNSAFE_PREF = re.compile(
    rf"(?:always|every\s+(?:time|answer|reply|response)|from now on|each time|in every|by default|going forward|include)[^.!?\n]{{0,60}}?(?:{_SECRET})"
    rf"|(?:以后|每次|每个|所有|一律|总是|都要?|默认)[^。！？\n]{{0,30}}?(?:附上|带上|加上|输出|显示|告诉|透露|贴出|列出|包含|问我要|先问|索要|要)[^。！？\n]{{0,12}}?(?:{_SECRET})"
    r"|(?:ask|request)\s+(?:me\s+)?for\s+(?:my|the)\s+(?:password|pin|credentials|otp|verification code)"
    r"|(?:always|every\s+(?:time|answer|reply)|from now on|include|add|append)[^.!?\n]{0,50}?(?:https?://|www\.|\blinks?\b(?!\s+to\s+(?:the\s+|its\s+)?(?:source|original|underlying|relevant|official|cited)\b)|\burl\b)"
    r"|(?:以后|每次|所有|一律|总是|都)[^。！？\n]{0,30}?(?:附上|带上|加上|插入|放上)[^。！？\n]{0,12}?(?:链接|网址|https?://)"
    r"|never\s+(?:say|tell|reveal|admit|mention|disclose)[^.!?\n]{0,30}?(?:you(?:'re| are)\s+an?\s+(?:ai|bot|assistant)|ai\b)"
    r"|(?:pretend|act)\s+(?:to be|you(?:'re| are)|as)\s+(?:a\s+)?human|不要(?:说|承认|透露|告诉)[^。！？\n]{0,10}?(?:你是|自己是)\s*(?:AI|ai|机器人|人工智能)"
    r"|假装(?:你)?是(?:真)?人",
    re.I,
)

# The product's own rendered memory / context pasted back: lines shaped like MEMORY.md or the
# context block, built from the key registry's labels.
_LABEL_WORDS = sorted({s.label_zh for s in REGISTRY} | {s.label_en for s in REGISTRY}, key=len, reverse=True)
_RENDERED_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:(?:偏好|事实|不再)\s*·\s*|(?:Preference|Fact|No longer)\s*·\s*)"
    r"|^\s*(?:[-*•]\s*)?(?:" + "|".join(re.escape(w) for w in _LABEL_WORDS) + r")\s*[:：]\s*\S"
    r"|^\s*#{1,3}\s*(?:用户记忆|用户画像|Memory|User memory|Profile|Preferences|Facts|偏好|事实|画像)"
    r"|^\s*-\s*(?:user|assistant)\s*:",
    re.I | re.M,
)

# A cue that what follows is someone else's text to work on: "summarize this email: …", "翻译：…".
_PASTE_CUE = re.compile(
    r"(?:summari[sz]e|translate|proofread|polish|rewrite|reword|paraphrase|reply to|respond to|answer this|fix the grammar"
    r"|check (?:this|the) (?:email|text|message)|here(?:'s| is) (?:the|an?|my draft|what)[^:\n]{0,30}"
    r"|翻译|总结|概括|润色|改写|校对|回复(?:这|一下)|帮我回|转述|摘要|整理一下)[^:：\n]{0,40}[:：\n]",
    re.I,
)
_QUOTES = re.compile(r"“[^”]{4,}”|\"[^\"]{4,}\"|「[^」]{4,}」|『[^』]{4,}』|‘[^’]{6,}’|(?<![A-Za-z])'[^'\n]{12,}'(?![A-Za-z])")

_EN_QUESTION = re.compile(r"\?\s*$|^\s*(?:should|shall|can|could|would|do|does|did(?!\s+(?:my|our|a|an)\b)|am|is|are|was|were|will|have|has|how|what|why|which|where|who|when(?!\s+(?:you|u|i|we|it'?s|there'?s)\b))\b[^.!]*$", re.I)
_EN_PLAN = re.compile(r"\b(?:planning to|plan to|going to|thinking (?:about|of)|considering|might|maybe|want to|wanna|hope to|hoping to|will try|someday|one day|eventually|until|till|through (?:friday|monday|the end)|let'?s|we (?:can|could|should)|shall we|would love to|i'?d love to)\b", re.I)
_EN_WISH = re.compile(r"\b(?:i'?d like to|i would like to|i wish|wish i|i'?d love to get)\b", re.I)
_ZH_OFFER = re.compile(r"要去|一起去|咱们去|我们去|去冲|想要|好想|改天")
_EN_REPORTED = re.compile(r"\b(?:i heard|heard that|apparently|they say|people say|rumou?r|according to|he said|she said|they said|was told)\b", re.I)
_ZH_REPORTED = re.compile(r"听说|据说|听人说|他说|她说|他们说|传言|网上说|据报道|据悉")
_THIRD_EN = re.compile(r"\b(?:he|she|they|his|her|their|him|it|its)\b|\bmy\s+(?:wife|husband|partner|boss|manager|colleague|coworker|co-worker|friend|sister|brother|mom|mum|dad|mother|father|son|daughter|kid|kids|team ?mate|client|cousin|uncle|aunt|neighbou?r|girlfriend|boyfriend|roommate|flatmate|lead|teacher|doctor)\b|\bthe\s+(?:film|movie|actor|actress|director|singer|band|author|ceo|founder|company|team|player|show|series|book|album)\b", re.I)
_THIRD_ZH = re.compile(r"(?<![其])他|她|它|他们|她们|我(?:的)?(?:同事|老板|领导|上司|老婆|老公|妻子|丈夫|爱人|对象|女朋友|男朋友|朋友|爸|妈|父亲|母亲|哥|姐|弟|妹|儿子|女儿|孩子|客户|经理|主管|闺蜜|室友|邻居|表哥|表姐|老师|师父|师傅|徒弟|师兄|师姐|师妹|师弟|学长|学姐|组长|下属|助理)|该片|这部|那部|这位|那位|这个(?:演员|导演|歌手)|主角|导演|演员|歌手|作者")
_THIRD_TITLE = re.compile(r"(?:我们|咱们|我的)?(?:组长|领导|老板|经理|主管|总监|老大|同事|同学|师傅|客户|上司)(?=[^，。,]{0,3}(?:休|说|要|让|是|在|去|刚|已经|觉得|很|也))"
                          r"|(?:my|our)\s+(?:boss|manager|colleague|coworker|lead|client|wife|husband|partner)\b", re.I)
_THIRD_PRONOUN = re.compile(r"\b(?:he|she|his|her|him|they|their)\b|他|她", re.I)
_FAMILY_EVENT = {"fact/birth", "fact/school", "fact/marriage"}
_NEG_FACT = re.compile(r"没有?(?:考|拿|通过|搬|结婚|买)|没能|未能|\b(?:didn'?t|did not|never|haven'?t|have not|failed)\b", re.I)


# Preferences about the assistant's answers need a cue that they are (a standing instruction, an
# answer-directed word): chit-chat advice to the other speaker ("don't give up", "keep doing what
# makes you happy") is not an instruction to the assistant.
_STANDING_EN = re.compile(r"\b(?:always|never|from now on|going forward|in future|in the future|by default|every time|each time"
                          r"|next time|keep doing|please|pls|i prefer|i'?d prefer|i like|i'?d like|i'?d rather|i want|i need"
                          r"|works? best|for me|with me|to me|me|keep it|keep them|that goes for|goes for (?:any|all|every)\w*)\b", re.I)
_ZH_ANSWER = re.compile(r"回答|回复|答复|回我|答我|给我|跟我|对我|帮我|你|写|讲|解释|列|总结|格式|说话|用|发我|报告|文档|邮件|代码")
# Preferences addressed to the assistant ("你都用LaTeX写"): "you" is the listener they direct.
_DIRECTED = _ANSWER_STYLE | {"preference/tool"}
# A request whose object is a statement about the user: "Can you add to my LinkedIn summary that I
# passed IOSH Managing Safely back in 2023?" asks for a task; what follows "that I" is said, not asked
# (blind 15 a+b).
_REQUEST_THAT = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\b.*\b(?:that|saying|mention(?:ing)?|noting|note)\s+(?:i|i'?ve|i'?m|im|my|i was)\b", re.I)
_STANDING_REQUEST = re.compile(r"以后|今后|往后|从今往后|默认|一律|每次|(?:回复|回答|答复|回[我俺])(?:能不能|可不可以|可以|能)|\b(?:always|from now on|going forward|in future|in the future|by default|every time"
                               r"|keep|whenever|when (?:it'?s|it is|there'?s))\b", re.I)
# Everyday likes need a liking or habit cue: "Salmon is my favorite food" is, "the food was great" is not.
_LIKES = {"preference/hobby", "preference/diet", "preference/drink"}
_LIKE_EN = re.compile(r"\b(?:like|likes|love|loves|enjoy|enjoys|into|fan of|favou?rite|prefer|hate|can'?t stand|usually|always|never"
                      r"|every (?:day|morning|week|weekend|night)|weekends?|on (?:saturdays|sundays)|most (?:days|saturdays|weekends)"
                      r"|allergic|vegan|vegetarian|don'?t (?:eat|drink)|addict\w*|obsessed|religion|live on|big on|hooked|passion"
                      r"|hobby|hobbies|in my (?:free|spare) time|for fun|only (?:coffee|tea|thing) i)\b", re.I)
_LIKE_ZH = re.compile(r"喜欢|爱|最爱|偏爱|常|平时|经常|每天|每周|每逢|周末|一般|习惯|离不[开得]|无.不欢|不吃|不喝|过敏|吃素|戒|只喝|只吃|偏好|迷上|入坑|爱好|热衷|上瘾|沉迷")
# A value must name something: function words, fillers and frame words never do.
_EMPTY_VALUE = re.compile(
    r"^(?:(?:the|a|an|my|your|our|some|more|most|first|last|other|this|that|these|those|it|its|thing|things|stuff|lot|lots"
    r"|something|anything|everything|nothing|though|also|too|very|really|just|of course|course|yes|no|ok|okay|well|so|weather"
    r"|power|food|drink|drinks|favou?rite|kind|kinds|way|ways|time|life|day|days|people|one|ones|words?|other words|details?"
    r"|minor|usa|us|fun|hey|hi|hello|yeah|yep|yup|sure|wow|haha|lol|omg|aww|cool|nice|great|thanks|being|having|doing|getting|going)\s*)+$"
    r"|^(?:这个|那个|什么|东西|事情|一下|不用|羡慕|这些|那些|那样|这样|一点|有点|说会话|其他|别的|好的|可以)$",
    re.I,
)
_GERUND_NEEDS_OBJECT = re.compile(
    r"^(?:going|doing|making|taking|getting|having|pushing|sinking|chatting|trying|looking|thinking|working|spending|using"
    r"|being|seeing|putting|keeping|giving|collaborating|unwinding|playing|watching|reading|listening|learning|building)$", re.I)
# An instruction cut before what it asks: "keep answers" from "Please keep answers short".
_VERB_ONLY_INSTRUCTION = re.compile(r"^(?:please\s+)?(?:keep|make|give|write|send|do)\s+(?:the\s+|your\s+|my\s+)?"
                                    r"(?:answers?|replies|reply|responses?|it|them|things)$", re.I)
_YOU_SUBJECT = re.compile(r"\b(?:you|your|you'?re|yours)\b|你(?!们公司)", re.I)


# Values must have the shape of their key: a language names a language, a department looks like
# a unit, a skill is a known skill or is said to be one... Checked on the model's spans (the rules
# have their own shapes); the out-of-domain run showed chit-chat spans under every key.
LANGUAGE_WORDS = (r"english|chinese|mandarin|cantonese|spanish|french|german|japanese|korean|italian|portuguese|russian|arabic|hindi"
                   r"|urdu|bengali|tamil|telugu|marathi|punjabi|turkish|dutch|swedish|norwegian|danish|finnish|polish|czech|greek"
                   r"|hebrew|thai|vietnamese|indonesian|malay|tagalog|filipino|swahili|persian|farsi|ukrainian|romanian|hungarian"
                   r"|catalan|basque|welsh|irish|afrikaans|zulu|yoruba|igbo|hausa|amharic|nepali|sinhala|burmese|khmer|lao"
                   r"|icelandic|estonian|latvian|lithuanian|slovak|slovenian|serbian|croatian|bosnian|bulgarian|albanian"
                   r"|macedonian|maltese|luxembourgish|galician|gujarati|kannada|malayalam|odia|oriya|assamese|sindhi|pashto|dari"
                   r"|kurdish|uzbek|kazakh|kyrgyz|mongolian|tibetan|uyghur|georgian|armenian|azerbaijani|azeri|javanese|sundanese"
                   r"|cebuano|visayan|bisaya|ilocano|hiligaynon|samoan|tongan|fijian|maori|hawaiian|somali|tigrinya|oromo|wolof"
                   r"|xhosa|sesotho|setswana|shona|kinyarwanda|luganda|lingala|haitian|creole|patois|quechua|guarani|nahuatl"
                   r"|hokkien|hakka|teochew|shanghainese|taiwanese|sign language|asl|bsl|auslan|esperanto|latin|yiddish"
                   r"|british|american|simplified|traditional")
_SHAPE = {
    "profile/language": re.compile(rf"\b(?:{LANGUAGE_WORDS})\b|[\u4e00-\u9fff]{{1,4}}[语文话]|普通话|国语|繁体|简体", re.I),
    "preference/language": re.compile(rf"\b(?:{LANGUAGE_WORDS})\b|[\u4e00-\u9fff]{{1,4}}[语文话]|普通话|国语|繁[体體]|简体|双语|bilingual", re.I),
    "profile/department": re.compile(r"[部组科处室团队中心线]|办|药房|病区|院区|车间|工段|班组|\w+olog(?:y|ie)\b|\b(?:icu|a&e|er|ward|pharmacy|nursing|surgery|pediatrics|paediatrics|obstetrics|emergency)\b|\b(?:team|department|dept|division|group|unit|office|desk|squad|function|ops|operations"
                                     r"|finance|hr|it|legal|sales|marketing|engineering|product|design|research|r&d|qa|compliance"
                                     r"|procurement|purchasing|logistics|support|audit|risk|treasury|tax|security|data|analytics)\b", re.I),
    "profile/education": re.compile(r"大学|学院|学校|本科|硕士|博士|研究生|大专|学士|中专|高中|专业|MBA|EMBA|\b(?:university|college|school|institute"
                                    r"|polytechnic|academy|bachelor'?s?|master'?s?|ph\.?d|doctorate|degree|diploma|mba|msc|bsc|ba|ma|meng|beng"
                                    r"|major|minor in|graduate|tech)\b|(?-i:\b[A-Z]{2,6}\b)", re.I),
    "profile/seniority": re.compile(r"\d|[一二三四五六七八九十两几多]+[来多余]?年|资深|高级|初级|中级|首席|实习|主管级|经理级|总监级|[职级]"
                                    r"|\b(?:senior|junior|principal|staff|lead|chief|head|entry|mid|intern|graduate|associate|director|vp"
                                    r"|executive|manager level|years?|decades?|band\s*\d+)\b|(?<![A-Za-z])[PLTMGE]\d", re.I),
}
_SKILL_CUE = re.compile(r"会|熟悉|熟练|精通|掌握|擅长|懂|技术栈|证|执照|资格|持有?|用|\blicen[cs]\w*|\bcertificat\w*|\bwork(?:s|ing)?\s+(?:\w+ly\s+)?(?:in|with)\b|\b(?:know|knows|proficient|fluent|skilled|expert|experienced|experience"
                        r"|good at|good with|certified|background in|trained in|specialis[ez]|specializ|stack|use|using|write|writes|coding"
                        r"|code|program|develop|build)\b", re.I)


_ORG = re.compile(r"(?-i:[A-Z])|公司|集团|银行|医院|工厂|厂|店|所|院|局|中心|机构|学校|大学|工作室|平台|事务所|券商|基金|图书馆|博物馆|美术馆|站$"
                  r"|^[\u4e00-\u9fff]{2,}(?:物流|快递|货运|航运|港务|保险|航空|证券|期货|信托|家居|家具|火锅|餐饮|酒楼|饭店|互娱|娱乐|游戏|科技|电子"
                  r"|能源|物业|地产|置业|传媒|文化|医药|药业|制药|生物|食品|酒店|汽车|电器|电气|机械|化工|钢铁|建工|建设|设计|咨询|律所|通信|电信|软件"
                  r"|农业|种业|纺织|服饰|环保|半导体|光电|水务|燃气|电力|矿业|投资|资本|百货|超市|商贸|贸易|实业|控股|股份|酒业|乳业|重工|制造|医疗"
                  r"|影视|出版|广告|外贸|智能|材料|仪器|数据|网络科技|信息技术|药房|大药房|快运|速运)$"
                  r"|\b(?:company|firm|bank|hospital|clinic|school|university|college|studio|agency|startup|start-up|store|shop"
                  r"|restaurant|factory|plant|lab|charity|ngo|council|ministry|government|consultancy|practice|group|co\.?|inc|ltd|llc|gmbh)\b", re.I)
# An employer said by its type (SPEC: "一家券商", "a hospital"): "a gold mine", "an airline", "一家酒庄".
_GENERIC_ORG = re.compile(r"(?:一家|一间|一所)\s*\S|\b(?:at|for|with|in|by)\s+an?\s+\w", re.I)
# A school or major the sentence says was studied: "我是河南农大物流管理专业毕业的", "I did my M.Pharm from ...".
_EDUCATION_CUE = re.compile(r"毕业|专业|就读|在读|读[了过的完]?(?:本科|硕士|博士|研究生|大学|书)?|学的|念的|拿的?(?:博士|硕士|学位|学士)|校友|留学"
                            r"|\b(?:graduated|graduate of|studied|study|degree|alumn\w*|did my|postdoc|phd|masters?|bachelor'?s?)\b", re.I)
_TOOL_CUE = re.compile(r"用|使用|软件|工具|\b(?:use|using|used|app|apps|software|tool|tools|platform|editor|ide|in|with)\b", re.I)
_INDUSTRY_CUE = re.compile(r"行业|领域|赛道|(?:在|做|干|搞|从事)[^，。,]{1,10}|公司|企业|厂|一家|\b(?:at an?|for an?|with an?|industry|sector|field|space|work in|work for|works in"
                           r"|working in|company|firm|business|i'?m in|i am in|we'?re in|we are in|career in)\b", re.I)


_STREET_AFTER = re.compile(r"[东西南北中]?(?:路|道|街|大街|大道|巷|胡同|弄|小区)")


# A Chinese employer needs no suffix when the sentence frames it as one: "我在淘天做数据分析",
# "我是蔚来智驾的感知算法工程师", "现在在华泰联合，还是干投行" (blind 10-12).
_ZH_EMPLOYER_BEFORE = re.compile(r"(?:(?:我|俺|本人)[^，。,！？]{0,4}?|现在)(?:在|是|进了?|去了?|加入了?|入职了?|跳到了?|跳槽到了?|跳槽去了?|来到了?)\s*$")
_ZH_EMPLOYER_AFTER = re.compile(r"^\s*(?:做|干|当|上班|工作|的|负责|搞|打工|实习|这边|那边|[，,]\s*(?:还是|现在|主要|负责|做|干|当|title))")


def _employer_frame_zh(text: str, sentence: Span, start: int, end: int) -> bool:
    if re.match(r"[学读念做干搞当]", text[start:end]):
        return False  # "我是学社会工作的" is what the user studied, "我是做销售的" what they do
    return bool(_ZH_EMPLOYER_BEFORE.search(text[max(sentence.start, start - 12):start])
                and _ZH_EMPLOYER_AFTER.match(text[end:end + 10]))





# Someone else's role: "The producer gave me advice", "my manager is ..." (not "I'm the producer").
_OTHERS_ROLE_BEFORE = re.compile(r"(?<!i'm )(?<!i’m )(?<!im )(?<!i am )(?<!as )\b(?:the|my|our|his|her|their|your)\s+$", re.I)
# "now I'm already the registered pharmacist": an adverb between "I'm" and "the" keeps it the user's.
_OWN_ROLE_BEFORE = re.compile(r"\b(?:i'?m|i am|as)\s+(?:(?:already|now|still|also|just|officially|finally|currently)\s+)+(?:the|my|our)\s+$", re.I)
# A role the user needs or hires is someone else's: "no need translator", "我们店在招收银员".
_WANTED_ROLE_BEFORE = re.compile(r"\b(?:no need(?: for)?|need|needs|needed|looking for|hire|hiring|recruit\w*)\s+(?:an?\s+|the\s+|another\s+|new\s+)*$"
                                 r"|(?:招|招聘|缺|需要|找)(?:一?个|几个|名)?$", re.I)
_PAST_STATE = re.compile(r"以前|之前|曾经|原来|过去|当年|一开始|刚开始|起初|刚入行|刚工作"
                         r"|\b(?:used to|back in|formerly|previously|lost my job|laid off|before (?:this|that|joining)"
                         r"|started (?:out |off )?as|started off"
                         r"|after (?:\w+ )?(?:years?|months?|stints?) (?:as|at|with|in|on)|spent (?:\w+ )?years (?:as|at|with|in))\b", re.I)
# Where the user comes from speaks only for its own clause: "im from Penang, speak malay, english and
# cantonese" still names the languages spoken (blind 10), while "I'm from Michigan" is no city.
_ORIGIN_STATE = re.compile(r"\b(?:where i'?m from|i'?m from|i am from|grew up|was born)\b|老家|出生在|生在", re.I)
_NOW_CUE = re.compile(r"现在|目前|如今|\b(?:now|currently|these days|today)\b", re.I)
# The place a move started from is not where the user lives now: "从长春搬过来", "moved from Lyon to Paris".
_ORIGIN_BEFORE = re.compile(r"(?:从|自)\s*$|\b(?:from|left|leaving)\s+(?:the\s+|our\s+|my\s+)?$", re.I)
_WORK_CONTEXT = re.compile(r"工作|经验|干了|入行|从业|职级|级别|岗|升|晋升|评上|资深|高级|初级|中级|这行|干这|做这|持证|执业|工龄|入职|(?:做|干|当)[^，。,]{0,8}(?:了|有)?[一二三四五六七八九十两几多\d]+年|现在是|"
                          r"\bbeen (?:in|doing|at|with|working|on)\b|\bin (?:local |the )?(?:government|trade|trades|business)\b|\b(?:work\w*|experience|career|job|industry|field|role"
                           r"|position|level|senior|junior|principal|staff|lead|intern|in (?:the )?(?:business|trade)|as an?|promot\w*|(?:my|a) band\s*\d+)\b"
                           r"|\byears?\s+(?:in|at|as|with|on)\b|年的?(?:经验|工龄)", re.I)
# A home event names a home or a car; a job change is not a bare verb nor a club, forum or course
# joined (LoCoMo/MSC out-of-domain runs: "bought a nice Merlot", "joined a gaming tournament").
_HOME_VALUE = re.compile(r"房|屋|车|公寓|别墅|\b(?:house|home|flat|apartment|condo|place|car|townhouse|property|cottage|cabin)\b", re.I)
BARE_VERB = re.compile(r"^(?:joined|join|joining|started|start|moved|switched|left|quit|changed|got|new)$", re.I)
NOT_A_JOB = re.compile(r"\b(?:group|forum|club|programm?e?|tournament|community|meetup|league|choir|band|gym|class|classes|challenge"
                        r"|competition|course|workshop|retreat|online|activist|volunteer\w*|support group|book club)\b"
                        r"|群|论坛|俱乐部|社团|比赛|兴趣班|课程|训练营", re.I)
JOB_CUE = re.compile(r"join|start|promot|hired|new (?:job|role|position|employer)|offer|switch|transfer|became|made (?:me|head|lead)"
                     r"|appointed|took over|moved (?:to|over|into|from)|入职|跳槽|升|调|转岗|转正|聘|提拔|当上|换工作|新工作|加入|进了?|去了|来的(?:公司|单位|厂|行|院|集团)", re.I)
_MOVE_CUE = re.compile(r"\bmov(?:e|ed|ing)\b|relocat|transferred|settled|emigrat|immigrat|搬|迁|调到|调去|调回|落户|定居|安家|回到|来到", re.I)
_AGE = re.compile(r"^\s*(?:old|of age|ago)\b|^\s*岁", re.I)
_TRIP = re.compile(r"旅游|旅行|出差|度假|玩了|去玩|飞去|去过|\b(?:vacation|vacay|holiday|trip|tickets?|flights?|flew|fly(?:ing)?|travel\w*|visit\w*|tour\w*|getaway"
                   r"|layover|been to|was in|went to|yesterday|last (?:week|month|weekend)|perform|performing|concert|gig"
                   r"|away (?:at|in|on)|out[- ]of[- ]office|conference|offsite|summit|seminar|expo|trade ?fair"
                   r"|next (?:mon|tue|wed|thu|fri|sat|sun)\w*)\b", re.I)


def _shape_veto(text: str, sentence: Span, start: int, end: int, label: str) -> str | None:
    value = text[start:end]
    sent = text[sentence.start:sentence.end]
    before = text[sentence.start:start]
    rx = _SHAPE.get(label)
    if rx is not None and not rx.search(value) and not (label == "profile/education" and _EDUCATION_CUE.search(sent)):
        return "shape"
    if label == "profile/skill" and not (_gazetteer_hit(value, ("code", "tech", "tool", "field")) or _SKILL_CUE.search(sent)):
        return "shape"
    if label == "profile/company" and not (_ORG.search(value.rstrip(" （(，,")) or _GENERIC_ORG.search(text[max(0, start - 6):start + 4])
                                           or _employer_frame_zh(text, sentence, start, end)):
        return "shape"
    if label == "preference/tool" and not (_gazetteer_hit(value, ("code", "tech", "tool")) or _TOOL_CUE.search(sent)):
        return "shape"
    if label == "profile/industry" and not _INDUSTRY_CUE.search(sent):
        return "shape"
    if label == "profile/role" and _OTHERS_ROLE_BEFORE.search(before) and not _OWN_ROLE_BEFORE.search(before):
        return "third_party"
    if label == "profile/role" and _WANTED_ROLE_BEFORE.search(before):
        return "third_party"  # "no need translator", "we're hiring a welder": someone else's job (blind 12)
    if label in ("profile/city", "fact/relocation") and _TRIP.search(sent) and not _residence(text, sent, start, end):
        return "temporary"  # a trip is not where the user lives
    if label in ("profile/city", "fact/relocation") and _ORIGIN_BEFORE.search(before):
        return "past"  # the origin of a move
    if label == "profile/city" and _STREET_AFTER.match(text[end:end + 4]):
        return "shape"  # "住南开区鞍山西道华苑小区": a street named after a city is no city (blind 12)

    if label.startswith("profile/") and label != "profile/seniority" and (
            _PAST_STATE.search(_NOW_CUE.split(before)[-1]) or _ORIGIN_STATE.search(re.split(r"[,，;；]", before)[-1])):
        return "past"  # "I used to have a dog back in Michigan"; not after "现在/now": "一开始做销售，现在做产品"
    event = event_veto(text, sentence, start, end, label)
    if event:
        return event
    if label == "profile/seniority" and not (_WORK_CONTEXT.search(sent) and not _AGE.search(text[end:end + 12])):
        return "shape"  # "thirty years old", "my youngest is almost 10 years old" are ages
    if label in ("preference/instruction", "preference/tone") and not instruction_stands(text, sentence, start):
        return "no_answer_cue"
    return None


# Where the user lives or works, said around the place: "relocated to Dubai last week", "我在三亚一家度假酒店当
# 主管", "我是苏州一家CRO的CRA", "working from the Vancouver office" (blind sets 2-7: a trip word in
# the same sentence — 度假, "site visit", "last month" — vetoed these as trips).
_RESIDENCE_SENT = re.compile(r"relocat\w*|\bmoved (?:to|here|up|down|over|back)\b|\bbased (?:in|out of)\b|\blive[sd]? in\b|\bliving in\b"
                             r"|搬到|搬来|搬去|定居|住在|常驻|base在|调到|调去了", re.I)
_RESIDENCE_BEFORE = re.compile(r"(?:我在|我是|我们|我就在|俺在|俺是|本人在)\s*$|\b(?:the|our|my)\s+$", re.I)
_RESIDENCE_AFTER = re.compile(r"^\s*(?:这边|那边|本地|市|当地)?\s*(?:的|一家|一个|一所|做|当|干|工作|上班|读|分公司|分部|总部|办公室|\w*(?:office|studio|team|branch|hq|site|campus)\b)", re.I)


def _residence(text: str, sent: str, start: int, end: int) -> bool:
    return bool(_RESIDENCE_SENT.search(sent) or (_RESIDENCE_BEFORE.search(text[max(0, start - 6):start])
                                                 and _RESIDENCE_AFTER.search(text[end:end + 16])))


def event_veto(text: str, sentence: Span, start: int, end: int, label: str, *, bare_verb_ok: bool = False) -> str | None:
    """``"shape"`` when the fact at ``text[start:end]`` (registry ``label``, read from ``sentence``)
    lacks the shape of its event, else None: a home event names a home or a car ("bought a nice
    Merlot" is none); a job change has a job cue, is no bare verb (unless ``bare_verb_ok``: the
    rules' "joined" stands for the change) and no club, forum or course joined; a move has a move
    word ("I was also in Rio" is none). Rule source: the LoCoMo / MSC out-of-domain runs (stop 22)."""
    value, sent = text[start:end], text[sentence.start:sentence.end]
    if label == "fact/home" and not _HOME_VALUE.search(value):
        return "shape"
    if label == "fact/job_change" and ((BARE_VERB.match(value.strip()) and not bare_verb_ok) or NOT_A_JOB.search(value)
                                       or not JOB_CUE.search(sent) or NOT_A_JOB.search(text[end:end + 40].split(".")[0])):
        return "shape"
    if label == "fact/relocation" and not _MOVE_CUE.search(sent):
        return "shape"
    return None


def _gazetteer_hit(value: str, names) -> bool:
    return any(name in names and rx.search(value) for name, rx in gazetteers())


def value_veto(text: str, sentence: Span, start: int, end: int, label: str) -> str | None:
    """Why the span is no value worth storing, or None: ``empty_value`` (function words, fillers,
    frame words such as "favorite food"), ``cut_value`` (a gerund torn from its object: "making"
    from "making jewelry"), ``short_value`` (one CJK character outside food and drink), ``shape``
    (the value lacks the shape of its key: a language, a unit, a degree or school, a level, a known
    or declared skill), and the cue checks ``no_answer_cue`` (answer-style preferences need an answer-directed or standing cue) and
    ``no_like_cue`` (hobbies, food and drink need a liking or habit cue)."""
    value = text[start:end].strip()
    sent = text[sentence.start:sentence.end]
    if _EMPTY_VALUE.match(value):
        return "empty_value"
    if _GERUND_NEEDS_OBJECT.match(value) or _VERB_ONLY_INSTRUCTION.match(value):
        return "cut_value"
    if len(value) == 1 and not value.isascii() and label not in ("preference/diet", "preference/drink"):
        return "short_value"
    if label == "profile/responsibility" and _CLAUSE_INSIDE.search(value):
        return "shape"  # "run a big marathon and it helps me keep my stamina", "run and since I moved" (MSC, stop 26)
    if _CLAUSE_VALUE.match(value) or (label.startswith("profile/") and label != "profile/seniority" and not re.search(r"[^\W\d_]", value)):
        return "shape"  # a clause ("I'm not as huge of a fan of their food") or a bare number ("16") is no value
    if label == "profile/language" and not is_cjk(value) and re.sub(rf"(?i)\b(?:{LANGUAGE_WORDS}|and|or|a|bit|of|some|little|fluent|native"
                                                                   r"|basic|conversational|sign|language|languages)\b|[\s,&/+-]", "", value):
        return "shape"  # "German Shepherds": a language word inside another name
    if label == "preference/answer_length" and not _LENGTH_SHAPE.search(value):
        return "shape"  # "小度" (the assistant's name) is no length
    if label in ("preference/hobby", "preference/drink", "preference/diet") and (
            _THIRD_ZH.search(value) or _KIN_VALUE.match(value) or _PLAN_VALUE.match(value)):
        return "plan" if _PLAN_VALUE.match(value) else "third_party"  # "表姐很爱烘焙", "要去冲杯咖啡喝"
    if label in _ANSWER_STYLE:
        # The cue may be in the next sentence: "Dollar figures rounded to whole thousands with a K.
        # That goes for any bid summary you give me." (blind 12), or the one before (blind 15).
        window = around_sentence(text, sentence)
        if not (_STANDING_EN.search(window) or _EN_STYLE_CUE.search(window) or _ZH_PREF_MARK.search(window)
                or _ZH_ANSWER.search(window)):
            return "no_answer_cue"
    shape = _shape_veto(text, sentence, start, end, label)
    if shape:
        return shape
    if label == "preference/hobby" and not _hobby_owned(text, sentence, start, end):
        return "no_like_cue"
    if label in _LIKES and not (label == "preference/hobby" and _HOBBY_AFTER_EN.search(text[end:sentence.end])):
        # The cue may follow in the next sentence ("… a flat white with oat milk? That's the only coffee I drink.")
        window = with_next_sentence(text, sentence)
        if not (_LIKE_EN.search(window) or _LIKE_ZH.search(window)):
            return "no_like_cue"
    return None


# A hobby is the user's when a liking or habit cue governs it in its own clause: "I love bowling",
# "Dance is my passion", "my love for surfing", "我平时喜欢钓鱼". A cue elsewhere in the sentence does
# not ("Reminiscing is always fun!", "Take care and keep enjoying your hobbies!", "Harry Potter and
# Game of Thrones are amazing - I'm totally hooked"). Rule source: LoCoMo out-of-domain run, stop 24,
# where 40 of 65 stored preferences were such hobbies.
_HOBBY_BEFORE_EN = re.compile(
    r"(?:\b(?:i|i'?m|i'?ve|i'?d|im|we|we'?re|we'?ve)\b[^.!?;]{0,25}?\b(?:love|loves|loved|like|likes|liked|enjoy|enjoys|enjoyed|adore"
    r"|into|fan of|hooked on|obsessed with|addicted to|took up|picked up|big on|fond of|crazy about|mad about"
    r"|hate|hates|dislike|can'?t stand|quit|stopped|gave up|no longer (?:like|enjoy|do)|not (?:a fan of|into))"
    r"|\b(?:i|we)\s+(?:\w+\s+)?(?:usually|always|often|regularly|sometimes)\s+(?:go|do|play)"
    r"|\bmy\s+(?:love|passion)\s+for|\bmy\s+(?:favou?rite\s+)?(?:hobby|hobbies|pastime)\s+(?:is|are|include)"
    r"|\bhobbies\s+(?:like|such as|include)|\bin my (?:free|spare) time,?\s+i\s+(?:\w+\s+)?)\s+(?:[\w'-]+\s+){0,2}$", re.I)
_HOBBY_AFTER_EN = re.compile(r"^\s*(?:is|are|has been|have been|was)\s+(?:\w+\s+){0,2}(?:my|our)\s+(?:\w+\s+)?(?:passion|hobby|hobbies|thing"
                             r"|favou?rite|life|jam|escape|happy place|therapy|outlet)\b", re.I)
_HOBBY_BEFORE_ZH = re.compile(r"(?:喜欢|爱|热爱|最爱|迷上了?|沉迷|热衷于?|爱好是?|兴趣是|入坑|平时|业余|没事就|周末|每周|每天|常常|经常)[^，。,！？!?；;]{0,6}$")
_HOBBY_AFTER_ZH = re.compile(r"^[^，。,]{0,4}是我(?:的)?(?:唯一的|最大的|最爱的|一大)?(?:爱好|最爱|兴趣)")
_HOBBY_HABIT_EN = re.compile(r"\b(?:every (?:week|weekend|morning|evening|night|saturday|sunday)|(?:on|most) (?:weekends|saturdays|sundays)"
                             r"|weekends are for|on weekends|in my (?:free|spare) time|for fun|since (?:uni|college|school|i was a kid))\b", re.I)
_NEGATED_VALUE = re.compile(r"^(?:never|not|no longer|don'?t|didn'?t|不|没|从不|从没)\b", re.I)


def _hobby_owned(text: str, sentence: Span, start: int, end: int) -> bool:
    sub = clause_at(text, sentence, start)
    value = text[start:end]
    if _NEGATED_VALUE.match(value):
        return False
    # The span may hold its own cue ("love painting landscapes"): the cue then governs the rest.
    if _HOBBY_BEFORE_EN.search(text[max(sentence.start, start - 60):start] + " ") and not _YOU_SUBJECT.search(text[sub.start:start]):
        return True
    if re.match(r"^(?:(?:i|we)\s+)?(?:really\s+)?(?:love|like|enjoy|adore)\s+\w", value, re.I) or re.match(r"^(?:喜欢|爱|热爱|迷上)", value):
        return True
    if _HOBBY_AFTER_EN.search(text[end:sentence.end]) or _HOBBY_AFTER_ZH.search(text[end:sentence.end]):
        return True
    sent = text[sentence.start:sentence.end]
    if _HOBBY_HABIT_EN.search(sent) and FIRST_PERSON.search(sent) and not _YOU_SUBJECT.search(text[sub.start:start]):
        return True  # "I do woodworking in my garage on weekends", "cricket nets every week since uni"
    before = text[sub.start:start]
    return bool(is_cjk(value) and _HOBBY_BEFORE_ZH.search(before) and not _THIRD_ZH.search(before))


_CLAUSE_INSIDE = re.compile(r"\b(?:and|but|since|because|so|or)\s+(?:it|i|i'?m|we|he|she|they|since|then)\b", re.I)
_CLAUSE_VALUE = re.compile(r"^(?:i'?m|i am|i|we|we'?re|you|you'?re)\s+\w", re.I)
_LENGTH_SHAPE = re.compile(r"短|长|详细|简|一句|几句|字|段|点|条|行|篇幅|啰嗦|\b(?:brief|briefly|short|shorter|long|longer|length|detail\w*|concise"
                           r"|lines?|sentences?|words?|paragraphs?|bullets?|tl;?dr|quick|deep|thorough|verbose|minimal|compact|summary"
                           r"|one-liners?|essay|novel|wall of text|to the point|succinct|in depth|in-depth|max|\d+)\b", re.I)
_KIN_VALUE = re.compile(r"^(?:表?[哥姐弟妹]|堂[哥姐弟妹]|老婆|老公|爸|妈|爷爷|奶奶|外公|外婆|姥姥|姥爷|儿子|女儿|孩子|同事|朋友|室友|舍友|男朋友|女朋友|对象|闺蜜)"
                        r"|^(?:my|his|her|their)\s+(?:wife|husband|partner|boyfriend|girlfriend|mom|mum|dad|mother|father|son|daughter|kids?"
                        r"|brother|sister|cousin|friend|roommate|flatmate)\b", re.I)
_PLAN_VALUE = re.compile(r"^(?:要去|打算|准备|想去|待会|等会|一会儿?|马上)")


def message_veto(text: str) -> str | None:
    """Why no candidate of this whole user turn may be stored, or None.

    Codes: ``injection`` (:func:`consolidation.extraction_common.detect_injection`),
    ``unsafe_preference`` (a 'preference' that directs the agent to leak or act, issue 13),
    ``pasted_memory`` (≥ 2 lines shaped like the product's own MEMORY.md / context block).
    """
    if detect_injection(text):
        return "injection"
    if _UNSAFE_PREF.search(text):
        return "unsafe_preference"
    if len(_RENDERED_LINE.findall(text)) >= 2:
        return "pasted_memory"
    return None


# Where pasted text begins: a separator line, a forwarded or quoted mail header.
_PASTE_START = re.compile(r"^[ \t]*(?:-{3,}|={3,}|_{3,}|\*{3,}|—{2,}|-+\s*(?:original|forwarded) message\s*-+|begin forwarded message:?"
                          r"|(?:from|发件人)[:：].+|>.*)[ \t]*$", re.I | re.M)


def own_words(text: str) -> str:
    """The user's own words before text they pasted (a separator line, a mail header, or the end of
    a paste cue such as "summarise this email:"), stripped; "" when nothing was pasted. Input: a
    user turn. Output: str. Rule source: blind 14 (stop 28)."""
    cuts = [m for m in (_PASTE_START.search(text), _PASTE_CUE.search(text)) if m]
    if not cuts:
        return ""
    return text[:min(m.start() if m.re is _PASTE_START else m.end() for m in cuts)].strip()


def quoted_regions(text: str) -> list[Span]:
    """Regions of ``text`` that are someone else's words: quotations, and everything after a
    paste cue ("summarize this email:", "翻译：")."""
    out = [Span(m.start(), m.end()) for m in _QUOTES.finditer(text)]
    m = _PASTE_CUE.search(text)
    if m:
        out.append(Span(m.end(), len(text)))
    return out


def span_veto(text: str, sentence: Span, start: int, end: int, label: str, *, quoted: list[Span] | None = None) -> str | None:
    """Why the value at ``text[start:end]`` (read from ``sentence``, registry ``label``
    ``<kind>/<name>``) may not be stored, or None.

    Codes: ``quoted``, ``question``, ``hypothetical``, ``temporary``, ``plan``, ``reported_speech``,
    ``other_speaker``, ``third_party``, ``no_first_person`` (profile and fact values with no first-person subject in
    the message: knowledge talk such as "1956年出生"), ``emotion``, ``negated_fact``.
    """
    if any(q.start <= start < q.end for q in (quoted if quoted is not None else quoted_regions(text))):
        return "quoted"
    sub = clause_at(text, sentence, start)
    clause = text[sub.start:sub.end]
    sent = text[sentence.start:sentence.end]
    kind = label.split("/", 1)[0]
    before = text[sub.start:start]
    value = text[start:end]
    asks = _ZH_QWORD.search(clause) or _EN_QUESTION.search(clause) or ("你" in clause and _ZH_QWORD_WEAK.search(clause))
    # "你以后答我可唔可以用繁体字？", "could you always reply in English?": a standing request, not a question.
    if asks and not (label in _DIRECTED and _STANDING_REQUEST.search(clause)) and not (
            kind != "preference" and _REQUEST_THAT.search(text[sub.start:start])):
        return "question"
    if _ZH_HYPO.search(sent[: start - sentence.start + 1]) or _EN_HYPO.search(sent) or re.search(
            r"\b(?:pretend|role-?play|let'?s say|say i(?:'m| am))\b|扮演|假装", sent, re.I):
        return "hypothetical"
    heard = text[sentence.start:start] + " " + clause
    if _ZH_REPORTED.search(heard) or _EN_REPORTED.search(heard):
        # Hearsay governs what follows it: "I heard he graduated from Tsinghua"; "I got bumped to senior
        # backend engineer last month, which apparently means I own the postmortems" is the user's own (blind 12).
        return "reported_speech"
    if kind != "fact" and (_ZH_TEMP.search(clause) or _EN_TEMP.search(clause)):
        return "temporary"
    if _ZH_PLAN.search(before) or _EN_PLAN.search(clause) or _ZH_OFFER.search(before):
        return "plan"
    if kind != "preference" and _EN_WISH.search(clause):
        return "plan"  # "I'd like to get a masters in mechanical engineering"
    if (_ZH_EMOTION.search(value) or _EN_EMOTION.search(value)):
        return "emotion"
    if _THIRD_TITLE.match(value):
        return "third_party"  # the value names someone else: "组长休产假", "my boss's ..."
    if label in _ADDRESSEE_LABELS and addressee(text, sentence, start, end):
        return "third_party"  # the organisation or place a task is addressed to is not the user's
    if label not in _DIRECTED and _YOU_SUBJECT.search(before) and (
            not FIRST_PERSON.search(before) or _YOU_ARE.search(before[_last_first_person(before):])):
        return "other_speaker"  # "you live in Oahu", "your morning runs": about the listener
    family = label in _FAMILY_EVENT
    third = _THIRD_ZH.search(before) or _THIRD_EN.search(before)
    if third and not family and not FIRST_PERSON.search(before[third.end():]):
        return "third_party"
    third_here = _THIRD_ZH.search(sent) or _THIRD_EN.search(sent)
    if kind in ("profile", "fact") and not FIRST_PERSON.search(text) and third_here:
        return "no_first_person"
    if kind == "fact" and not FIRST_PERSON.search(sent):
        # An event needs its subject: the writer (said, or dropped as Chinese and terse English
        # drop it) — never the film's director of the message ("1956年出生").
        implied = is_cjk(sent) or IMPLIED_FIRST_PERSON_EN.search(sent)
        if third_here or not implied or (not FIRST_PERSON.search(text) and _THIRD_PRONOUN.search(text)):
            return "no_first_person"
    if kind == "fact" and _NEG_FACT.search(clause):
        return "negated_fact"
    return None


# "short answer is not enough anymore", "简短的不够用了": the style named is being dropped.
_STYLE_DROPPED_AFTER = re.compile(r"^\s*(?:answers?|replies|responses|ones?|版|的)?\s*(?:(?:is|are)\s+(?:not enough|no longer|not (?:ok|okay|needed|working|good))"
                                  r"|不够(?:用)?了|不行了|不要了)", re.I)


# "I'm sure you are a great nurse": the listener is the subject after the writer's last word about
# themself (MSC, stop 24).
_YOU_ARE = re.compile(r"\b(?:you are|you'?re|u r|ur)\s+(?:\w+\s+){0,3}$|你(?:是|也是|真是)[^，。,]{0,6}$", re.I)


def _last_first_person(before: str) -> int:
    last = 0
    for m in FIRST_PERSON.finditer(before):
        last = m.end()
    return last


def negation(text: str, sentence: Span, start: int, end: int, label: str) -> tuple[str, int]:
    """How a negation in the value's sub-clause bears on it: ``("set", start)`` when there is none
    (or the key is an answer style: "never use emojis" is the preference); ``("retract", start)``
    for a change ("我现在不喝咖啡了", "I now hate hiking") or a disliked hobby; ``("set", cue_start)``
    for food and drink avoided ("我不喝酒" keeps 不喝酒 as the value); ``("veto", start)`` for
    another negated value ("I'm not a manager": nothing to store)."""
    if label in _ANSWER_STYLE:
        return ("retract" if _STYLE_DROPPED_AFTER.search(text[end:end + 40]) else "set"), start
    sub = clause_at(text, sentence, start)
    clause = text[sub.start:sub.end]
    if RETRACT_CUE.search(clause):
        return "retract", start
    neg = None
    for m in NEGATION_CUE.finditer(text, sub.start, start):
        neg = m
    if neg is None:
        return "set", start
    if label in ("preference/diet", "preference/drink"):
        return "set", neg.start()
    if label == "preference/hobby":
        return "retract", start
    return "veto", start


def is_retraction(text: str, sentence: Span, start: int, end: int, label: str = "") -> bool:
    """True when :func:`negation` reads the value at ``text[start:end]`` as taken back."""
    return negation(text, sentence, start, end, label)[0] == "retract"


# A denial of the value anywhere in the turn: "我不负责华北", "其实我不是记者", "别寻思我是搞继电保护的",
# "外面人老以为我是记者", "no more SMB book for me", "I'm not on the SMB team".
_DENIAL_BEFORE = re.compile(
    r"(?:(?:不是|并非|别(?:以为|寻思|觉得|当|说)我是|以为我是)(?:搞|做|干|在)?|不负责|不跑|不做|不干"
    r"|\bnot (?:on|in|a|an|the)\b|\bno more\b|\bno longer\b|\bisn'?t\b|\bnot\b)\s*$",
    re.I,
)
_DENIABLE_KINDS = ("profile",)


def denied_in_turn(text: str, cand) -> bool:
    """True when a profile candidate's value is denied somewhere in the same turn: an occurrence
    of the value right after a denial cue (``不是``, ``不负责``, ``别寻思我是``, ``以为我是``, "not
    on", "no more" … within the 12 characters before it). The rule (issue 13, blind sets 6 and
    7): a user who says what they are *not* never means it as their profile, and the model,
    reading clause by clause, proposes the denied value as often as the affirmed one. Inputs: the
    turn text and a candidate with ``kind`` and ``value``. Output: bool."""
    value = (getattr(cand, "value", "") or "").strip()
    if getattr(cand, "kind", "") not in _DENIABLE_KINDS or len(value) < 2:
        return False
    lowered, needle = text.lower(), value.lower()
    start = lowered.find(needle)
    while start >= 0:
        if _DENIAL_BEFORE.search(text[max(0, start - 12):start]):
            return True
        start = lowered.find(needle, start + 1)
    return False
