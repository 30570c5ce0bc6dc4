"""Chinese rules of the extractor: sentence/clause splitting, subject detection, never-rules
(questions, hypotheticals, emotions, temporary states, negation, past), profile / preference /
fact patterns and relative-date resolution (去年, 上个月, 三年前 ...). Entry: :func:`extract_zh`.
"""
from __future__ import annotations

import datetime as _dt
import re

from . import extraction_lexicon as L
from .extraction_common import (
    TOOL_NAMES_LOWER, _PII_LIKE, _PROJECT, _TECH_RE, _alt, _cand, _shift_month, _skills, _strip_discourse, _tool_prefs, _zh_int, days_back_date,
)


def _resolve_date_zh(s: str, at: _dt.datetime) -> tuple[_dt.date, str] | None:
    y, m, prec, found = at.year, None, "year", False
    mm = re.search(r"(\d{4})年", s)
    if mm:
        y, found = int(mm.group(1)), True
    elif (m2 := re.search(r"(?:^|[是在于从自，,\s])(\d{2})年(?=[进来入到毕考拿结生])", s)):
        # "我是18年进的报社": a two-digit year before a joining / graduating verb (blind 15).
        yy = int(m2.group(1))
        y, found = (2000 + yy if 2000 + yy <= at.year else 1900 + yy), True
    elif "前年" in s:
        y, found = at.year - 2, True
    elif "去年" in s:
        y, found = at.year - 1, True
    elif "今年" in s:
        found = True
    elif "明年" in s:
        y, found = at.year + 1, True
    else:
        mm = re.search(r"([一二两三四五六七八九十\d]{1,3})年前", s)
        if mm and _zh_int(mm.group(1)):
            y, found = at.year - _zh_int(mm.group(1)), True
    if re.search(r"上个?月", s):
        y, m = _shift_month(at.year, at.month, -1)
    elif re.search(r"这个月|本月|(?<![上下个本这\d一二三四五六七八九十])月(?:初|中)", s):
        y, m = at.year, at.month  # "我月初调去配载组了": the start of this month (blind 15)
    elif re.search(r"下个?月", s):
        y, m = _shift_month(at.year, at.month, 1)
    else:
        mm = re.search(r"(?<![\d一二三四五六七八九十])(十[一二]?|[一二三四五六七八九]|1[0-2]|[1-9])月(?![份]?[\d一二三四五六七八九十]+[号日]?\s*(前|内))", s)
        if mm:
            m = _zh_int(mm.group(1))
    if m:
        return _dt.date(y, m, 1), "month"
    if found:
        return _dt.date(y, 1, 1), prec
    return days_back_date(s, at, "zh")


_ZH_EMOTION = re.compile(r"烦死|好烦|真烦|焦虑|心力交瘁|崩溃|郁闷|压力(好|很|太|山)?大|想辞职|辞职算了|受不了|累死|气死|难受|无语|头疼|抓狂|绝望|心累|烦躁|委屈|难过|伤心|火大|憋屈|真想|要命|烦人")
_ZH_TEMP = re.compile(r"这周|本周|下周|今天|明天|后天|今晚|今早|昨天|前天|昨晚|这两天|这几天|这阵子|最近|临时|暂时|目前先|这会儿|待会|一会儿?|月底前|下个?月|这次|这趟|刚才"
                      r"|(?:这个?|本|下个?|上个?)周末|(?<!每)(?<!每个)周末(?![^，,。；]{0,6}?(?:一般|通常|都|也|从不|很少|基本|别|不要|不|统一|一律|的(?:消息|提醒|时间)))")
# Plans and wishes are not stable facts ("我打算明年考研", "等我有空了再研究一下Docker").
_ZH_PLAN = re.compile(r"打算|拟申报|拟报考|竞聘|准备(?:去|学|考|换|转)|计划(?:去|学|考|换|转)|想学|要学|想去|想转|等我|有空(?:了|再|的时候)|再研究|考虑要不要|在想要不要|在考虑")
_ZH_HYPO = re.compile(r"如果|假如|(?<![主只])要是|假设|万一|若是|倘若|(?:^|[，,。；;\s])若(?!干)|假使|换做是?我|换作是?我")
_ZH_QWORD = re.compile(r"[吗呢嘛][？?]?$|是不是|要不要|该不该|能不能|可不可以|有没有|应不应该|[？?]")
_ZH_QWORD_WEAK = re.compile(r"怎么|什么|多少|哪|几[天个]|为什么|如何|咋")
_ZH_NEG = re.compile(r"不是|并非|别以为|不算|没在|不在|没有在|不做|不干|不负责|从没|从来没|没做过|没用过|不属于|^不$")
_ZH_PAST = re.compile(r"^(我|本人)?(之前|以前|原来|过去|曾经|那时候|当时)|原(?:在|任|为|是|先)|之前那种|以前那种|之前一直|以前一直|(?<![没未])[干做待呆当]过(?!来|去|头|度|渡|滤)")
_ZH_REQUEST = re.compile(r"^(帮我|帮忙|请你?|麻烦|给我|你帮|能否|可以帮|替我|问一下|想问|问个|顺便把)")

_ZH_DISCOURSE = re.compile(
    r"^(你好|您好|好的|好吧|(?:好|对|早|行|嗯)(?=[，,。！!\s]|$)|嗯+|对了|另外|还有|顺便说一下|顺便说下|顺便|说起来|跟你说下|跟你说个喜事|跟你说|跟你同步一下|更新一下我的情况|先说下背景|"
    r"早上好|其实|不过|但是|但|而且|所以|那么|那|行吧|OK|ok|可以|很好|不错|挺好|算了|哈哈|说实话|老规矩|是的|嗯嗯|没错|然后)[，,：:\s。！]*"
)
_ZH_OTHERS_RE = re.compile(r"^(是|因为|就是)?(有个|有位|有一个|有些|我们?的?)?(" + _alt(L.ZH_OTHERS) + r")")
_ZH_FAMILY_RE = re.compile(r"^(我的?|我家|我们家|咱家)?(" + _alt(L.ZH_FAMILY) + r")|^(我家|我们家|咱家)(" + _alt(L.ZH_FAMILY_AFTER_HOME) + r")")
_ZH_REPORTED = re.compile(r"(客户|领导|老板|同事|他|她|他们|她们|对方|候选人)(说|表示|觉得|认为|要求|反馈)")

_ZH_WE_RE = re.compile(r"^(我们|咱们|我司|我们公司|公司)(?!的?(" + _alt(L.ZH_OTHERS) + "))")
_ZH_TITLE_TAIL_RE = re.compile(r"的(?P<t>[^的]{0,10}(?:" + _alt(L.ZH_TITLE_SUFFIXES) + r"))$")
_ZH_FAMILY_ANY_RE = re.compile("(" + _alt(L.ZH_FAMILY) + ")")


_ZH_LIST_RULE = re.compile(r"^(?:" + _alt(L.ZH_OTHERS) + r")(?:的[^，,。]{1,6})?(?:名单|清单|列表|信息|报价)?(?:一律|统一|全部|都)(?:按|以|用)")


def _zh_subject(c: str) -> str | None:
    if _ZH_REPORTED.search(c):
        return "other"
    m = _ZH_FAMILY_RE.match(c)
    if m:
        return "family:" + (m.group(2) or m.group(4))
    if _ZH_WE_RE.match(c):
        return "we"
    if _ZH_OTHERS_RE.match(c) and not re.match(r"^我(是|在|做)", c):
        if _ZH_LIST_RULE.match(c):
            return None  # "供应商一律按报价从低到高排": how the user wants a list of them, not what they do
        return "other"
    if re.match(r"^(你|请|帮我|麻烦|给我)", c):
        return "you"
    m = re.search(r"(?<![给帮让跟陪叫问诉对和替])(我|本人)(?!们)", c)
    if m and m.start() <= 6:
        return "self"
    return None


def _split_zh(text: str) -> list[tuple[str, list[str]]]:
    out = []
    for m in re.finditer(r"[^。！？!?；;\n]+[。！？!?；;\n]*", text):
        sent = m.group(0).strip()
        if not sent:
            continue
        body = sent.rstrip("。！？!?；;\n ")
        clauses = [c.strip() for c in re.split(r"[，,：:]", body) if c.strip()]
        out.append((sent, clauses))
    return out


# --------------------------------------------------------------------------- Chinese patterns
_ZH_CITY_RE = re.compile("(" + _alt(L.ZH_CITIES) + ")(?![大石治小异藤路公园学站]|南站|[东西南北]站|南出发)")
_ZH_PROV_RE = re.compile("(" + _alt(L.ZH_PROVINCES) + ")(?!大学|路)")
_ZH_CITY_BAD_BEFORE = re.compile(r"(去|到|飞|飞往|出差|从|往|赴|离开|前往|来自)$")
_ZH_CITY_MOVE = re.compile(r"(调回|调到|调去|搬到|搬去|搬回|回到|落户|定居|移居|常驻|住在|base在|base|在|到了|是|于)$")
_ZH_TITLE_RE = re.compile(
    r"(?<=[是的做当任个名])(?!月)(?P<t>(?:(?!的|我|在|是|做|一家|一名|一位|一个|这边|那边|和|跟|，|还|了|考)[\u4e00-\u9fffA-Za-z&+#]){0,10}?"
    r"(?:" + _alt(L.ZH_TITLE_SUFFIXES) + r")员?)"
    r"(?=$|[^\u4e00-\u9fffA-Za-z]|的|了|啊|吧|呢|在|已|[一二三四五六七八九十两几多]+年|和|兼|带|负责|主要|天天|每天|平时|这|那|岗|工作)")
# A title reached by a change: "升成了部门经理", "提拔为主管", "转岗做了测试工程师".
_ZH_TITLE_CHANGE_RE = re.compile(
    r"(?:升|晋升|提拔|提升|转岗|转行|转正|调任|调岗|当上|成为|升任|出任|定岗|聘任|任命|聘)(?:成|为|到|任|做)?了?(?:一名|一个|个)?(?P<t>[^了的我你他她，,。\d\s]{0,8}?(?:"
    + _alt(L.ZH_TITLE_SUFFIXES) + r"))(?=$|[^\u4e00-\u9fffA-Za-z]|了|的)")
# A job named by its field: "我是做嵌入式的", "我在设计院做结构设计", "在集团战略部做行业研究".
_ZH_DO_ROLE_RE = re.compile(r"^(?:我|本人)?(?:现在|目前|一直|主要|其实)?是(?:做|搞|干)(?P<x>[^，,。的？?]{2,12})的")
_ZH_AT_DO_ROLE_RE = re.compile(
    r"^(?:我|本人)?(?:现在|目前|一直)?在[^，,。做当干搞]{2,16}?(?:做|当|干|搞)(?P<x>[\u4e00-\u9fffA-Za-z]{0,6}?(?:"
    + _alt(L.ZH_FIELDS + L.ZH_TITLE_SUFFIXES) + r"))(?=$|工作|相关|方面|岗|的工作|这块)")
_ZH_DEPT_RE = re.compile(
    r"(?:^|(?<=[是在到的了|]))(?P<d>(?:(?!的|我|在|是|一家|做|这边|那边|，|了|到)[\u4e00-\u9fffA-Za-z&]){1,10}?"
    r"(?:部门|事业部|事业群|研究院|中心|部|组|科室|大区|实验室|工作室))(?=$|的|做|工作|上班|当|任|担任|负责|里|了|，|上|[^\u4e00-\u9fffA-Za-z])")
_ZH_RESP_RE = re.compile(
    r"(?:主要|平时|日常|目前|现在|专门|兼)?(?:负责|对接|主要做|主要管|主要(?:看|处理|盯|跑|搞)|兼管|(?<![主监保托不尽血水别气吸只接])管(?:理)?(?!理员|理层|理者|家|道|子|用|它|不了)|支持|跟进|服务于?|带着?(?=[^，,。；]{0,10}(?:团队|组|人|团))|覆盖)(?:的是|的)?(?P<o>[^，,。；]{2,24})")
_ZH_RESP_DEAL = re.compile(r"(?:主要|平时|日常)?跟(?P<o>[^，,。；]{2,16}?)打交道|(?:主要|平时|日常)(?:用[A-Za-z+#.\s]{1,20}?)?(?:写|搞|开发|维护)(?P<o2>[^，,。；]{2,24})")
_ZH_INDUSTRY_RE = re.compile("(" + _alt(L.ZH_INDUSTRIES) + ")")
_ZH_INDUSTRY_CTX = re.compile(r"公司|企业|车企|厂|集团|品牌|行业|领域|连锁|门店|总部|机构|医院|银行|工厂|研究院|超市|码头|港")
# An industry word naming somebody else ("医院那边的人看不懂") is a third party, not the user's employer.
_ZH_INDUSTRY_THIRD = re.compile(r"^(?:那边|这边|那头|方面|的人|的同事|的领导|的客户|的医生|的老师)")
_ZH_INDUSTRY_MINE = re.compile(r"(?:在|是|于|进了?|去了|做|当|加入了?|入职了?|任职于?)[^，,。]{0,10}$")
_ZH_EDU_RE = re.compile(
    r"(?P<deg>本科|硕士|博士|研究生|MBA|大专|学士|博士后|大学)(?:是在|是|在)?(?P<u>[\u4e00-\u9fffA-Za-z]{2,12}?)(?:读|毕业|念)的?"
    r"|(?P<u2>[\u4e00-\u9fff]{2,10}(?:大学|学院)|" + _alt(L.ZH_UNIVERSITY_SHORT) + r")(?:[\u4e00-\u9fff]{0,6}?)(?P<deg2>本科|硕士|博士|研究生)?毕业"
    r"|毕业于(?P<u3>[\u4e00-\u9fffA-Za-z]{2,14})")
_ZH_STANDING = re.compile(r"以后|今后|往后|默认|统一|一律|给我|你|更想|更喜欢|偏好|偏爱|习惯|一直用|一向用|都用|只用|换成|改用|按")
_ZH_DIRECTIVE = re.compile(r"以后|今后|往后|默认|统一|一律|给我|你|更想|更喜欢|偏好|偏爱|习惯|一直用|一向用|都用|只用|换成|改用|按"
                           r"|平时用|平常用|日常用|一般用|常用|主要用")
_ZH_PREF_MARK = re.compile(r"尽量|的时候|(?:回答|回复|答复|写|讲|解释)时|都|以后|今后|往后|之后|下次|默认|统一|一律|一向|一直|总是|向来|从来|习惯|喜欢|偏好|偏爱|希望|最好|记得|别|不要|不用|只|每天|每次|平时|老规矩|类|所有|任何|全部|更想|更喜欢|宁可|能不")
_ZH_GENERIC_OUTPUT = re.compile(
    r"^(?:所有的?|你的?|给我的?)?(?:回答|回复|答复|输出|代码注释|注释|示例代码|日期|金额|数字|报告|邮件|周报|文档|跟我说话|和我说话)"
    r"(?![^，,。]{0,4}?(?:这|那|上面|刚才|这个|那个|比))[^，,。]{0,6}?(?:请|麻烦|要|用|写成|写|统一|一律|别|不要|都|控制|保留|尽量|按|以)")
_ZH_PREF_TOPICS = [
    ("code_completeness", re.compile(r"完整可运行|完整的?代码|完整的类|代码片段|只给片段|可运行")),
    ("code_comments", re.compile(r"注释")),
    ("structure", re.compile(r"先给(结论|数字|数据)|先说结论|再解释|[三四五]段式|[三四五]段来|背景-|按.{0,14}(组织|结构)|结论先行|总分总|例子|举例|举个例|案例|打比方")),
    ("answer_length", re.compile(r"结论|简短|简洁|简单点|精简|短一点|长段落|长一点|详细|讲细|讲透|展开讲|铺垫|啰嗦|废话|句话|字以内|太长|太短|行以内|字数|篇幅|超过.{1,3}段|一页")),
    ("format", re.compile(r"表格|列表|分点|要点|条目|markdown|Markdown|图表|配图|配个图|编号|大纲|思维导图|摘要")),
    ("citation", re.compile(r"法条|出处|来源|引用|参考文献")),
    ("date_format", re.compile(r"日期[^，,。]{0,10}(?:YYYY|yyyy|年月日|[年月日]-|格式|写成|写法)")),
    ("language", re.compile(r"中文|英文|英语|双语|繁体|简体")),
    ("currency", re.compile(r"(?:金额|价格|报价|费用|预算|成本|数字|数据|都|统一|一律)[^，,。]{0,8}?(?:用|按|换成|以|折成|折算成|折算为|换算成|换算为|折合成?|转成|转换成)(?P<v>人民币|美元|欧元|英镑|港币|港元|日元|新加坡元|澳元|加元|韩元|泰铢)")),
    ("number_format", re.compile(r"阿拉伯数字|大写数字|汉字数字|中文数字|大写金额|百分比|百分数|绝对数|绝对值")),
    ("units", re.compile(r"万元|元为单位|为单位|[做作当]单位|单位(?:统一|都|一律)|公制|公斤|小数|千分位")),
    ("sort_order", re.compile(r"从低到高|从高到低|从大到小|从小到大|从新到旧|从旧到新|升序|降序|倒序|正序|(?:按|以)[^，,。]{1,12}?排(?:序|列|名)?(?:$|[，,。])")),
    ("grouping", re.compile(r"分档|分组|分段|分区间|分桶|(?:按|以)[^，,。]{1,12}?(?:分类|归类|分开列|拆分)")),
    ("tone", re.compile(r"语气|口吻|正式一点|口语化|客气|幽默|委婉|通俗|大白话|接地气|专业术语|术语")),
    ("emoji", re.compile(r"表情|emoji", re.I)),
    ("visual_style", re.compile(r"(?<![文语])风格|画风|色调|配色")),
]
# A standing rule without 以后/都 ("账龄报告给我按30/60/90天分档"): "<thing>给我按/用…", about no one artefact.
_ZH_RULE_MARK = re.compile(r"^(?![帮请麻把让])[^，,。]{1,12}?给我(?:按|用|都|一律|统一|以)")
_ZH_DEICTIC = re.compile(r"这|那|上面|刚才|上次|本期|这次")
_ZH_HABITS = [
    ("diet", re.compile(r"吃素|素食|不吃(辣|肉|牛肉|猪肉|海鲜)|忌口|过敏|清真|吃辣|清淡|低糖|低脂")),
    ("drink", re.compile(r"咖啡|美式|拿铁|喝茶|只喝茶|奶茶|喝酒|不喝酒")),
    ("transport", re.compile(r"高铁|动车|火车|飞机|航班|自驾|开车|地铁|打车|骑车|靠窗|过道")),
    ("schedule", re.compile(r"作息|早起|晚睡|上班时间|工作时间|午休|[早晚]上?[一二三四五六七八九十两\d]{1,3}点(?:以后|之后|后|以前|之前|前)|下班(?:后|以后|时间)"
                            r"|周末[^，,。]{0,8}(?:工作|消息|提醒|推送|会议|开会|打扰|找我|联系我|打电话)|(?:工作|消息|提醒|推送|会议|开会)[^，,。]{0,8}周末")),
    ("hobby", re.compile(r"(?:每个?周末|周末|平时|业余|空闲|闲暇|下班后|有空)[^，,。]{0,6}?(?:" + _alt(L.ZH_HOBBIES) + r")"
                         r"|(?:喜欢|爱|热爱|迷上了|常去|坚持)(?:去)?(?:" + _alt(L.ZH_HOBBIES) + r")")),
]
# Commuting is a fact of life, not a preference: a transport habit needs a choice ("一般坐高铁", "能不坐飞机就不坐").
_ZH_CHOICE_MARK = re.compile(r"一般|一向|一直|总是|向来|习惯|喜欢|尽量|能不|只坐|不坐|优先|偏好|宁可|更愿意|都坐|都是坐|不爱|讨厌")
_ZH_HABIT_MARK = re.compile(r"一向|一直|习惯|总是|向来|从来|每天|每次|平时|都|只|能不|不坐|戒了|现在|喜欢|爱|不吃|不喝|别|不要|一般|通常")
_ZH_FACT_EVENTS = [
    ("school", re.compile(r"(上|读|念|进)了?的?(?:在职|全日制|非全日制)?(幼儿园|小学|初中|高中|大学|研究生|E?MBA|MPA|MPAcc|博士|硕士|[初高][一二三]|[一二三四五六]年级)|高考|中考|小升初|考上了?(?:重点)?(?:幼儿园|小学|初中|高中|大学|研究生|博士)?")),
    ("birth", re.compile(r"出生|生了?二胎|生了(个|一个)?(儿子|女儿|孩子|宝宝)?|当(了)?(爸爸|妈妈|爹|妈|爸)|添了|生娃|怀孕|二胎")),
    ("marriage", re.compile(r"结[了的]?婚|领[了的]?证|订[了的]?婚|离[了的]?婚|办[了的]?婚礼")),
    ("relocation", re.compile(r"搬到了?|搬去了?|搬回了?|搬家|定居|落户|移居到?")),
    ("graduation", re.compile(r"毕业")),
    # "我是2019年来的公司", "我2018年进的公司" (blind 14): the 是…的 of a year says when the user joined
    ("job_change", re.compile(r"入职|跳槽|转岗|升职|晋升|退休|换了?(?:份|个)?工作|离职|转行|(?:\d{4}|(?<!\d)\d{2}|[去前今]|大前)年[^，,。]{0,3}?[进来到]的(?:公司|单位|厂|行|院|集团|报社|医院|学校|银行)")),
    # certificates and professional exams passed: "我二月份刚拿到了报关水平测试的合格证书", "考完了准精算师的最后一门"
    ("certificate", re.compile(r"(?:考完|考过|考下|考出|通过|拿到|拿下|取得|考取|获得)了?(?P<n>[^，,。；了]{1,20}?)的?(?:全科)?"
                               r"(?:合格证书?|资格证书?|证书|执业证|资格证|执照|驾照|考试|最后一门|全科|认证)"
                               # "我HCIE是去年年底才拿的" (blind 12): the certificate first, when it was won after
                               r"|我的?(?P<n2>[A-Za-z][A-Za-z0-9+\-]{1,12}|[^，,。；我]{2,10}?(?:证|证书|执照|资格证?))"
                               r"是[^，,。；]{0,10}?(?:拿|考|考下来|考出来|考过|拿到|考到|通过)的")),
]
_ZH_CERT_NAME_BAD = re.compile(r"^(?:这个|那个|一个|个|了|这|那)?$")
_ZH_RETRACT = re.compile(r"(?:不再|已经不|没再)(?P<v>负责|管|带|做|对接|是)(?P<o>[^，,。；]{2,20}?)了?$"
                         r"|(?:现在|目前|如今)(?:已经)?不(?P<v2>负责|管|带|做|对接)(?P<o2>[^，,。；]{2,20}?)了$")


def _clean_zh_value(v: str) -> str:
    prev = None
    while prev != v:
        prev = v
        v = re.sub(r"^(我|你|以后|今后|往后|之后|下次|也|都|就|还有|另外|对了|回答我|给我|是|的|把|而且|现在|主要)", "", v)
        v = re.sub(r"(就行|就好|就可以|即可|吧|啊|哈|呀|了|。|这块|这一块|这方面|方面|等)$", "", v)
    return v[:40]


_ZH_TRIP = re.compile(r"开会|出差|参会|参展|看展|展会|参加培训|受训|旅游|旅行|度假|路过|转机|见客户|拜访")


def _zh_city(c: str, stop: int = 10 ** 6) -> str | None:
    if _ZH_TRIP.search(c) and not re.search(r"常驻|定居|住在|调到|调回|搬到|base", c):
        return None  # "我在北京开会": a one-off trip, not where the user works or lives
    for rx in (_ZH_CITY_RE, _ZH_PROV_RE):
        for m in rx.finditer(c):
            if m.start() >= stop:
                break
            before = c[max(0, m.start() - 6):m.start()]
            if _ZH_CITY_BAD_BEFORE.search(before) and not _ZH_CITY_MOVE.search(before):
                continue
            after = c[m.end():m.end() + 4]
            if rx is _ZH_PROV_RE and not _ZH_CITY_MOVE.search(before):
                continue
            if _ZH_CITY_MOVE.search(before) or re.match(r"(分公司|分行|支行|分院|分部|办事处|基地|园区|总部|办公室|工厂|这边|那边|本地|人|的|一家|[^\u4e00-\u9fff]|$|中心|公司|区|市|做|工作|上班|办公)", after):
                return m.group(1)
    return None


def _zh_profile(c: str, lang: str, out: list) -> None:
    n0 = len(out)
    resp = _ZH_RESP_RE.search(c) or _ZH_RESP_DEAL.search(c)
    if resp and re.search(r"用[A-Za-z][\w .+#-]{0,20}$", c[:resp.start()]):
        resp = None  # "用Jira管需求": what a tool is used for, not a duty
    city = _zh_city(c, resp.start() if resp else 10 ** 6)
    if city:
        out.append(_cand("profile", "city", city, lang))
    masked = c
    for rx in (_ZH_CITY_RE, _ZH_PROV_RE):
        masked = rx.sub("|", masked)
    masked = re.sub(r"\|(分公司|总部|这边|那边|本地|工厂|办公室)?", "|", masked)
    is_resp_clause = bool(re.match(r"^(主要|平时|日常|专门)?(负责|对接|管|支持|跟|兼管|带)", masked))
    for m in _ZH_DEPT_RE.finditer(masked):
        d = m.group("d")
        if d in L.ZH_NOT_DEPT or re.match(r"^(对接|支持|负责|服务|给|跟|和|为|以|一个|这个|那个)", d) or (resp and m.start() >= resp.start()):
            continue
        out.append(_cand("profile", "department", d, lang))
        break
    # An industry word inside a department name ("人力资源部") names the department, not the employer.
    c_ind = _ZH_DEPT_RE.sub(lambda m: "|" * len(m.group(0)), c)
    for ind in _ZH_INDUSTRY_RE.finditer(c_ind):
        if (_ZH_INDUSTRY_CTX.search(c) or re.match(r"(?:国企|央企|外企|民企)", c[ind.end():])) and not _ZH_INDUSTRY_THIRD.match(c[ind.end():]) \
                and ("我" in c or _ZH_INDUSTRY_MINE.search(c[:ind.start()])):
            out.append(_cand("profile", "industry", ind.group(1), lang))
            break
    if not is_resp_clause:
        for m in _ZH_TITLE_RE.finditer(c):
            t = m.group("t")
            if resp and m.start() >= resp.start():
                continue
            if c[m.start() - 1] == "做" and "用" in c[:m.start()]:
                continue  # "用SQL做数据分析": an activity done with a tool, not a job title
            t = re.sub(r"^了?[一二三四五六七八九十两几多\d]+年(?:多)?的?", "", t)  # "做了十年外贸" -> 外贸
            if len(t) < 2 and not re.match(r"[A-Za-z]", t):
                continue
            out.append(_cand("profile", "role", t, lang))
            sen = next((s for s in L.ZH_SENIORITY if t.startswith(s)), None)
            if sen:
                out.append(_cand("profile", "seniority", sen, lang))
            break
    if not any(cd.key == "role" for cd in out[n0:]):
        dm = _ZH_DO_ROLE_RE.search(c) or _ZH_AT_DO_ROLE_RE.search(c) or _ZH_TITLE_CHANGE_RE.search(c)
        x = dm and _clean_zh_value(dm.group("x") if "x" in dm.groupdict() else dm.group("t"))
        if x and not _ZH_QWORD_WEAK.search(x) and not re.search(r"^[好完过得到]|了", x) \
                and not (_ZH_CITY_RE.fullmatch(x) or _ZH_PROV_RE.fullmatch(x)):
            ind_x = _ZH_INDUSTRY_RE.match(x)
            if ind_x and not any(cd.key == "industry" for cd in out[n0:]):
                out.append(_cand("profile", "industry", ind_x.group(1), lang))
            if not (ind_x and ind_x.group(1) == x):  # "我是做房地产的" is an industry, not a role
                out.append(_cand("profile", "role", x, lang))
    if resp:
        o = re.sub(r"^(几家|一些|十几家|多家|各个|一个|整个|所有|公司的?|我们的?|部门的?)", "", resp.group("o") or resp.group("o2"))
        tm = _ZH_TITLE_TAIL_RE.search(o) if "是" in c[:resp.start()] else None
        if tm:
            out.append(_cand("profile", "role", tm.group("t"), lang))
            o = o[:tm.start()]
        if _TECH_RE.fullmatch(o.strip()) or (resp.groupdict().get("o2") and re.fullmatch(r"[A-Za-z0-9+#.\s]+(?:(?:和|、|与|及|以及|还有|/|,|，)[A-Za-z0-9+#.\s]+)*", o.strip())):
            o = ""  # "主要写SystemVerilog和Python": languages written are skills, not a duty
        o = _clean_zh_value(o)
        if len(o) >= 2 and not re.search(r"[？?吗呢]", o):
            out.append(_cand("profile", "responsibility", o, lang))
    co = re.search(r"我(?:现在|目前)?在(?P<co>[\u4e00-\u9fffA-Za-z]{2,12}?)(?:做|当|工作|上班|任职)", c)
    name = co.group("co") if co else ""
    br = re.search(r"(?:" + _alt(L.ZH_CITIES) + r")(?:分行|支行|分公司|分院|办事处|分部|研发中心|基地)$", name)
    if br and br.start() >= 2:
        name = name[:br.start()]  # "招商银行深圳分行" -> 招商银行 (the city is taken above)
    elif city:
        name = ""
    generic = re.sub(r"^(?:一家|某|大型|小|本地|私立|公立|国有|民营|外资|三甲|知名)+", "", name)
    if name and not (_ZH_CITY_RE.search(name) or _ZH_PROV_RE.search(name) or (_ZH_INDUSTRY_RE.fullmatch(generic) or not generic)
                     or re.search(r"一家|家里|公司|单位|这边|那边|总部|现场|工地|外面|老家|部|中心|组|院|的|厂", name)):
        out.append(_cand("profile", "company", name, lang))
    e = _ZH_EDU_RE.search(c)
    if e:
        u = e.group("u") or e.group("u2") or e.group("u3")
        deg = e.group("deg") or e.group("deg2") or ""
        deg = "" if deg == "大学" else deg
        out.append(_cand("profile", "education", u + deg, lang))


def extract_zh(text: str, at: _dt.datetime, out: list) -> None:
    subject = None
    for sent, clauses in _split_zh(text):
        # terminology: 我说的X是指Y / X的口径按Y
        tm = re.search(r"我(?:说|讲|提|指)的\s*[「“\"']?(?P<t>[^，,。\"”」']{1,12}?)[」”\"']?\s*[，,]?\s*(?:是指|指的是|就是指|意思是|是说)(?P<d>[^。！？]+)", sent)
        if not tm:
            tm = re.search(r"(?P<t>[A-Z]{2,6}|[「“\"][^」”\"]{1,10}[」”\"])[^。]{0,12}?[，,]?\s*口径\S{0,4}?按(?P<d>[^。！？]+)", sent)
        if not tm:
            tm = re.search(r"^(?:我|我们|我们内部|我们这边|我们公司|我们组|咱们|内部)?[^，,。把]{0,6}把\s*(?P<d>[^，,。把]{2,16}?)\s*(?:简称为?|称为|称作|叫做|叫成|叫)"
                           r"\s*[「“\"'‘]?(?P<t>[^，,。」”\"'’]{1,12}?)[」”\"'’]?(?=$|[，,。；;]|\s)", sent)
            if tm and (_ZH_OTHERS_RE.match(sent) or _ZH_REPORTED.search(sent) or _PROJECT.search(sent)
                       or re.search(r"项目|系统|版本|需求单|工单", tm.group("d"))):
                tm = None  # "我们把这个项目叫凤凰" names a project, not a habitual term
        if tm and not _ZH_HYPO.search(sent) and not sent.rstrip().endswith(("？", "?")):
            term = tm.group("t").strip("「」“”\"' ")
            out.append(_cand("preference", "pref:terminology:" + term.lower(), _clean_zh_value(tm.group("d").strip("，, ")), "zh"))
            subject = "self"
            continue
        is_q = sent.rstrip().endswith(("？", "?"))
        for i, raw in enumerate(clauses):
            c = _strip_discourse(raw, _ZH_DISCOURSE)
            if not c:
                continue
            s = _zh_subject(c)
            if s is not None:
                subject = s
            if _ZH_HYPO.search(c):
                break
            if _ZH_QWORD.search(c) or (is_q and (i == len(clauses) - 1 or _ZH_QWORD_WEAK.search(c))):
                continue
            if _ZH_EMOTION.search(c) or _PII_LIKE.search(c):
                continue
            subj = subject or "none"
            # facts (self or family) with a time anchor
            if subj == "self" or subj.startswith("family:") or subj == "none":
                _zh_fact(c, subj, at, out)
            if _ZH_TEMP.search(c) or _PROJECT.search(c) or _ZH_PAST.search(c) or _ZH_PLAN.search(c):
                continue
            if subj in ("other",) or subj.startswith("family:"):
                continue
            # retract
            r = _ZH_RETRACT.search(c)
            if r and subj == "self":
                key = "role" if r.group("v") == "是" else "responsibility"
                out.append(_cand("profile", key, _clean_zh_value(r.group("o") or r.group("o2")), "zh", operation="retract"))
                continue
            # "平时用Jira管需求" names a preferred tool; "日常主要用Python" describes the job (a skill).
            used = _tool_prefs(c, sent, "zh", out, _ZH_DIRECTIVE, code_ok=bool(_ZH_STANDING.search(c)) or subj != "self")
            got_pref = bool(used & TOOL_NAMES_LOWER) and any(
                cd.kind == "preference" for cd in out[-1:])
            marked = _ZH_PREF_MARK.search(c) or _ZH_PREF_MARK.search(sent) or _ZH_GENERIC_OUTPUT.match(c) \
                or (_ZH_RULE_MARK.match(c) and not _ZH_DEICTIC.search(c))
            if not got_pref and marked and subj in ("self", "you", "none", "we"):
                for key, rx in _ZH_PREF_TOPICS:
                    tm = rx.search(c)
                    if tm:
                        out.append(_cand("preference", "pref:" + key, tm.groupdict().get("v") or _clean_zh_value(c), "zh"))
                        got_pref = True
                        break
            if not got_pref and subj in ("self", "none", "you"):
                for key, rx in _ZH_HABITS:
                    if key == "transport" and not _ZH_CHOICE_MARK.search(c):
                        continue
                    if rx.search(c) and (_ZH_HABIT_MARK.search(c) or (subj == "self" and "我" in c)):
                        out.append(_cand("preference", "pref:" + key, _clean_zh_value(c), "zh"))
                        got_pref = True
                        break
            if got_pref or _ZH_REQUEST.match(c) or subj == "you":
                continue
            if subj == "self" and not _ZH_NEG.search(c):
                _zh_profile(c, "zh", out)
            if subj == "we" and not _ZH_NEG.search(c) and re.match(r"^(?:我们|咱们|我司|我们公司|公司)(?:是|是一家|算是|属于|做的是|是做)", c):
                ind = _ZH_INDUSTRY_RE.search(c)
                if ind:  # "我们是一家不到五十人的SaaS创业公司"
                    out.append(_cand("profile", "industry", ind.group(1), "zh"))
            # A company's setup ("我们库是PostgreSQL", "我们把数仓迁到ClickHouse了") is not the user's skill unless used.
            if (subj == "self" or (subj == "we" and _ZH_WE_USE.search(c))) and not _ZH_NEG.search(c):
                _skills(c, "zh", out, used)


_ZH_WE_USE = re.compile(r"用|使用|基于|技术栈|写|开发|跑在|搭在|做")


def _zh_fact(c: str, subj: str, at, out: list) -> None:
    if re.search(r"今天|明天|这周|下周|去参加|出差", c):
        return
    for topic, rx in _ZH_FACT_EVENTS:
        m = rx.search(c)
        if not m:
            continue
        d = _resolve_date_zh(c, at)
        if not d:
            return
        member = subj.split(":", 1)[1] if subj.startswith("family:") else ""
        if not member:
            fm = _ZH_FAMILY_ANY_RE.search(c[:m.start()])
            member = fm.group(1) if fm else ""
        if subj == "none" and not member and topic not in ("birth",):
            return
        ev = re.sub(r"(?<=[结领订离办])[了的]", "", m.group(0)) if topic == "marriage" else m.group(0)
        if topic == "certificate" and m.group("n2"):
            ev = re.sub(r"^我的?", "", ev)  # "HCIE是去年年底才拿的"
        if topic == "relocation":
            city = _ZH_CITY_RE.search(c, m.end()) or _ZH_PROV_RE.search(c, m.end())
            if city:
                ev = re.sub(r"了$", "", ev) + city.group(1)
                out.append(_cand("profile", "city", city.group(1), "zh"))
        value = member + ev
        key = "fact:" + topic + (":" + member if member else "")
        if topic == "certificate":
            name = re.sub(r"^(?:刚|才|终于|已经|顺利)+", "", m.group("n") or m.group("n2"))
            if _ZH_CERT_NAME_BAD.match(name) or member:
                return
            key = "fact:certificate:" + name.lower()
        out.append(_cand("fact", key, value, "zh", d[0], d[1]))
        return
